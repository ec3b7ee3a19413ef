// Ground truth for Note [Dictionaries and lists of parameters] on the real
// ParameterDict and ParameterList.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %real_torch

#include <torch/torch.h>

#include <string>

struct PromptBankImpl : torch::nn::Module {
  PromptBankImpl(int64_t len, int64_t dim) {
    for (const std::string task : {"sst2", "mnli"})
      prompts->insert(task, (torch::randn({len, dim}) * 0.02).requires_grad_());
    prompts->insert("rte", prompts["mnli"]);
    register_module("prompts", prompts);
  }
  torch::nn::ParameterDict prompts;
};
TORCH_MODULE(PromptBank);

void PositivePromptUnderTwoTasks() {
  PromptBank bank(4, 8);
  torch::optim::Adam opt(bank->parameters(), torch::optim::AdamOptions(1e-2));
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'prompts.mnli' twice (also as 'prompts.rte'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
}

struct TemperaturesImpl : torch::nn::Module {
  TemperaturesImpl() {
    temps->append(torch::ones({1}));
    temps->append(torch::ones({1}));
    register_module("temps", temps);
  }
  torch::nn::ParameterList temps;
};
TORCH_MODULE(Temperatures);

void NegativeFreshTemperatures() {
  Temperatures m;
  torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(1e-3));
}

// Note [Containers filled after their registration]: a list registered
// empty, then given one tensor per step.
struct EulerFlowImpl : torch::nn::Module {
  explicit EulerFlowImpl(int64_t steps) {
    gains = register_module("gains", torch::nn::ParameterList());
    auto h = torch::full({1}, 1.0 / steps, torch::requires_grad());
    for (int64_t k = 0; k < steps; ++k)
      gains->append(h);
  }
  torch::nn::ParameterList gains{nullptr};
};
TORCH_MODULE(EulerFlow);

void PositiveListRegisteredThenFilled() {
  EulerFlow flow(4);
  torch::optim::SGD opt(flow->parameters(), torch::optim::SGDOptions(0.05));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'gains.0' twice (also as 'gains.1'); each step() updates it twice; give each element a tensor of its own [libtorch-shared-parameter-update]
}

struct FreshGainsImpl : torch::nn::Module {
  explicit FreshGainsImpl(int64_t steps) {
    gains = register_module("gains", torch::nn::ParameterList());
    for (int64_t k = 0; k < steps; ++k)
      gains->append(torch::full({1}, 1.0 / steps, torch::requires_grad()));
  }
  torch::nn::ParameterList gains{nullptr};
};
TORCH_MODULE(FreshGains);

void NegativeFreshGains() {
  FreshGains flow(4);
  torch::optim::SGD opt(flow->parameters(), torch::optim::SGDOptions(0.05));
}
