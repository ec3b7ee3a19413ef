// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A member ModuleList or Sequential filled in the constructor (Note
// [Members filled in the constructor]), and modules known only by their
// class's one constructor.

#include <torch/torch.h>

struct BlockImpl : torch::nn::Module {
  BlockImpl() : mix(register_module("mix", torch::nn::Linear(4, 4))) {}
  torch::nn::Linear mix;
};
TORCH_MODULE(Block);

// One block pushed on every pass: weight sharing across steps.
struct RefinerImpl : torch::nn::Module {
  explicit RefinerImpl(int iterations) {
    Block shared;
    for (int i = 0; i < iterations; ++i)
      steps->push_back(shared);
    register_module("steps", steps);
  }
  torch::nn::ModuleList steps;
};
TORCH_MODULE(Refiner);

// A new block on every pass.
struct StackImpl : torch::nn::Module {
  explicit StackImpl(int depth) {
    for (int i = 0; i < depth; ++i)
      layers->push_back(Block());
    register_module("layers", layers);
  }
  torch::nn::Sequential layers;
};
TORCH_MODULE(Stack);

void PositiveMemberListFilledWithOneBlock() {
  Refiner model(3);
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'steps.0.mix.weight' twice; each step() updates it twice; construct a separate module for each element [libtorch-shared-parameter-update]
  // CHECK-NOTES: :19:14: note: every iteration of the loop adds 'shared' here, a handle to the same module
}

// The model is a parameter: its class has one constructor, which is how it
// was built, wherever that was.
void PositiveModelGivenToAFunction(Refiner model) {
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'steps.0.mix.weight' twice; each step() updates it twice; construct a separate module for each element [libtorch-shared-parameter-update]
  // CHECK-NOTES: :19:14: note: every iteration of the loop adds 'shared' here, a handle to the same module
}

class Trainer {
public:
  explicit Trainer(Refiner model)
      : model_(model), optimizer_(model_->parameters(), torch::optim::AdamOptions(1e-3)) {}
  // CHECK-NOTES: :[[@LINE-1]]:24: warning: 'Adam' is built from a list that holds parameter 'steps.0.mix.weight' twice; each step() updates it twice; construct a separate module for each element [libtorch-shared-parameter-update]
  // CHECK-NOTES: :19:14: note: every iteration of the loop adds 'shared' here, a handle to the same module

private:
  Refiner model_;
  torch::optim::Adam optimizer_;
};

void NegativeMemberListOfFreshBlocks(Stack model) {
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-3));
  Stack local(4);
  torch::optim::Adam opt2(local->parameters(), torch::optim::AdamOptions(1e-3));
}
