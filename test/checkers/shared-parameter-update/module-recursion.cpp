// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A recursive parameters() inside a loop over modules() visits a parameter
// once per module that contains it (Note [Recursive parameters in a loop
// over modules]).

#include <torch/torch.h>

struct BlockImpl : torch::nn::Module {
  BlockImpl() { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Block);

struct NetImpl : torch::nn::Module {
  NetImpl() {
    block = register_module("block", Block());
    out = register_module("out", torch::nn::Linear(4, 2));
  }
  Block block{nullptr};
  torch::nn::Linear out{nullptr};
};
TORCH_MODULE(Net);

// A hand-written SGD step.
void PositiveManualStep(Net &net, double lr) {
  torch::NoGradGuard no_grad;
  for (const auto &m : net->modules())
    for (auto &p : m->parameters())
      // CHECK-FIXES: for (auto &p : m->parameters(false))
      if (p.grad().defined())
        p.sub_(lr * p.grad());
  // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'sub_' updates parameter 'block.fc.weight' in place 3 times per pass over modules(): 'parameters' recurses into submodules, so each module that contains a parameter visits it again; pass 'false' to visit each module's own parameters
}

// Without the root, a parameter two registrations deep is visited twice.
void PositiveSequentialWithoutSelf(double lr) {
  torch::nn::Sequential seq(Block(), torch::nn::Linear(4, 4));
  torch::NoGradGuard no_grad;
  for (auto &m : seq->modules(/*include_self=*/false))
    for (auto &item : m->named_parameters(true))
      // CHECK-FIXES: for (auto &item : m->named_parameters(false))
      item.value().add_(item.value().grad(), -lr);
  // CHECK-NOTES: :[[@LINE-1]]:20: warning: 'add_' updates parameter '0.fc.weight' in place 2 times per pass over modules(): 'named_parameters' recurses into submodules
}

void NegativeOwnParameters(Net &net, double lr) {
  torch::NoGradGuard no_grad;
  for (const auto &m : net->modules())
    for (auto &p : m->parameters(false))
      p.sub_(lr * p.grad());
}

// Only leaf modules reach the inner loop.
void NegativeLeavesOnly(Net &net, double lr) {
  torch::NoGradGuard no_grad;
  for (const auto &m : net->modules()) {
    if (!m->as<torch::nn::Linear>())
      continue;
    for (auto &p : m->parameters())
      p.sub_(lr * p.grad());
  }
}

// A module without submodules.
void NegativeFlatModel(double lr) {
  torch::nn::Linear lin(4, 4);
  torch::NoGradGuard no_grad;
  for (const auto &m : lin->modules())
    for (auto &p : m->parameters())
      p.sub_(lr * p.grad());
}

// Overwriting a parameter twice is overwriting it once.
void NegativeReinitialise(Net &net) {
  torch::NoGradGuard no_grad;
  for (const auto &m : net->modules())
    for (auto &p : m->parameters())
      p.normal_(0, 0.02);
}
