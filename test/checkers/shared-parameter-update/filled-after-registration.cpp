// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Note [Containers filled after their registration]: register_module
// registers a handle to the module a member holds, so what the constructor
// appends to the member afterwards is registered too.

#include <torch/torch.h>

#include <string>
#include <vector>

// One step size appended once per Euler step, into a list registered empty.
struct EulerFlowImpl : torch::nn::Module {
  EulerFlowImpl(int64_t steps) {
    gains = register_module("gains", torch::nn::ParameterList());
    auto h = torch::ones({1}) / steps;
    for (int64_t k = 0; k < steps; ++k)
      gains->append(h);
  }
  torch::nn::ParameterList gains{nullptr};
};
TORCH_MODULE(EulerFlow);

void PositiveListRegisteredThenFilled() {
  EulerFlow flow(4);
  torch::optim::SGD opt(flow->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'gains.0' twice (also as 'gains.1'); each step() updates it twice; give each element a tensor of its own [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-10]]:14: note: every iteration of the loop adds 'h' here, a handle to the same tensor
}

// A ModuleList registered first, then given one block per layer.
struct TiedStackImpl : torch::nn::Module {
  TiedStackImpl(int64_t depth) : block(8, 8) {
    layers = register_module("layers", torch::nn::ModuleList());
    int64_t i = 0;
    while (i++ < depth)
      layers->push_back(block);
  }
  torch::nn::Linear block;
  torch::nn::ModuleList layers{nullptr};
};
TORCH_MODULE(TiedStack);

void PositiveModuleListRegisteredThenFilled() {
  TiedStack net(3);
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-3));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'layers.0.weight' twice; each step() updates it twice; construct a separate module for each element [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-11]]:15: note: every iteration of the loop adds 'block' here, a handle to the same module
}

// A dictionary registered first; the second key reuses the first's tensor.
struct BiasesImpl : torch::nn::Module {
  BiasesImpl() {
    bias = register_module("bias", torch::nn::ParameterDict());
    bias->insert("start", torch::zeros({16}));
    bias->insert("end", bias["start"]);
  }
  torch::nn::ParameterDict bias{nullptr};
};
TORCH_MODULE(Biases);

void PositiveDictRegisteredThenFilled() {
  Biases m;
  torch::nn::utils::clip_grad_norm_(m->parameters(), 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'bias.start' twice (also as 'bias.end'); the total norm counts it twice and its gradient is scaled twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-11]]:11: note: 'bias.start' and 'bias.end' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-11]]:11: note: and here
}

// Keys made in a counted loop, one tensor under each.
struct TaskScalesImpl : torch::nn::Module {
  TaskScalesImpl(int64_t tasks, torch::Tensor shared) {
    scales = register_module("scales", torch::nn::ParameterDict());
    for (int64_t t = 0; t < tasks; ++t)
      scales->insert("task" + std::to_string(t), shared);
  }
  torch::nn::ParameterDict scales{nullptr};
};
TORCH_MODULE(TaskScales);

void PositiveDictCountedLoop(torch::Tensor s) {
  TaskScales m(3, s);
  torch::optim::SGD opt(m->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'scales."task" + std::to_string(t)' twice; each step() updates it twice; give each key a tensor of its own [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-10]]:15: note: every iteration of the loop adds 'shared' here, a handle to the same tensor
}

// A fresh gain and a fresh layer on every pass.
struct FreshStepsImpl : torch::nn::Module {
  FreshStepsImpl(int64_t steps) {
    gains = register_module("gains", torch::nn::ParameterList());
    layers = register_module("layers", torch::nn::ModuleList());
    for (int64_t k = 0; k < steps; ++k) {
      gains->append(torch::ones({1}));
      layers->push_back(torch::nn::Linear(8, 8));
    }
  }
  torch::nn::ParameterList gains{nullptr};
  torch::nn::ModuleList layers{nullptr};
};
TORCH_MODULE(FreshSteps);

void NegativeFreshEachPass() {
  FreshSteps m(4);
  torch::optim::SGD opt(m->parameters(), torch::optim::SGDOptions(0.1));
}

// One element per tensor handed in: the loop variable changes every pass.
struct FromTensorsImpl : torch::nn::Module {
  explicit FromTensorsImpl(const std::vector<torch::Tensor> &init) {
    gains = register_module("gains", torch::nn::ParameterList());
    for (const auto &t : init)
      gains->append(t);
  }
  torch::nn::ParameterList gains{nullptr};
};
TORCH_MODULE(FromTensors);

void NegativeOnePerTensor(const std::vector<torch::Tensor> &init) {
  FromTensors m(init);
  torch::optim::SGD opt(m->parameters(), torch::optim::SGDOptions(0.1));
}

// The shared gain appended once, after the registration, and each step
// gets a clone of it.
struct ClonedGainsImpl : torch::nn::Module {
  ClonedGainsImpl(int64_t steps) {
    gains = register_module("gains", torch::nn::ParameterList());
    auto h = torch::ones({1}) / steps;
    gains->append(h);
    for (int64_t k = 1; k < steps; ++k)
      gains->append(h.clone());
  }
  torch::nn::ParameterList gains{nullptr};
};
TORCH_MODULE(ClonedGains);

void NegativeClonedGains() {
  ClonedGains m(4);
  torch::optim::SGD opt(m->parameters(), torch::optim::SGDOptions(0.1));
}
