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
