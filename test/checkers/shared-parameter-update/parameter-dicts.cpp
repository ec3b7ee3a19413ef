// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Note [Dictionaries and lists of parameters]: ParameterDict::insert and
// ParameterList::append register their tensor, so a tensor inserted twice
// is registered twice.

#include <torch/torch.h>

#include <string>

// Soft prompts: one task's prompt inserted again under a second task.
struct PromptBankImpl : torch::nn::Module {
  PromptBankImpl(int64_t len, int64_t dim) {
    for (const std::string task : {"sst2", "mnli"})
      prompts->insert(task, torch::randn({len, dim}) * 0.02);
    prompts->insert("rte", prompts["mnli"]);
    register_module("prompts", prompts);
  }
  torch::nn::ParameterDict prompts;
};
TORCH_MODULE(PromptBank);

void PositivePromptUnderTwoTasks() {
  PromptBank bank(4, 8);
  torch::optim::Adam opt(bank->parameters(), torch::optim::AdamOptions(1e-2));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'prompts.mnli' twice (also as 'prompts.rte'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-12]]:16: note: 'prompts.mnli' and 'prompts.rte' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-12]]:14: note: and here
}

// One scale tensor under two literal keys.
struct ScalesImpl : torch::nn::Module {
  explicit ScalesImpl(torch::Tensor shared) {
    scales->insert("query", shared);
    scales->insert("key", shared);
    register_module("scales", scales);
  }
  torch::nn::ParameterDict scales;
};
TORCH_MODULE(Scales);

void PositiveOneTensorTwoKeys(torch::Tensor s) {
  Scales m(s);
  torch::optim::SGD opt(m->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'scales.query' twice (also as 'scales.key'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-12]]:13: note: 'scales.query' and 'scales.key' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-12]]:13: note: and here
}

// A loop over literal keys that inserts one member tensor under each.
struct HeadBiasImpl : torch::nn::Module {
  HeadBiasImpl() {
    for (auto head : {"start", "end"})
      bias->insert(head, shared_);
    register_module("bias", bias);
  }
  torch::Tensor shared_ = torch::zeros({16});
  torch::nn::ParameterDict bias;
};
TORCH_MODULE(HeadBias);

void PositiveLoopOverKeys() {
  HeadBias m;
  torch::optim::SGD opt(m->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'bias.start' twice (also as 'bias.end'); each step() updates it twice; give each key a tensor of its own [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-12]]:13: note: every iteration of the loop adds 'shared_' here, a handle to the same tensor
}

// A ParameterList whose third element is its first.
struct TemperaturesImpl : torch::nn::Module {
  TemperaturesImpl() {
    temps->append(torch::ones({1}));
    temps->append(torch::ones({1}));
    temps->append(temps[0]);
    register_module("temps", temps);
  }
  torch::nn::ParameterList temps;
};
TORCH_MODULE(Temperatures);

void PositiveListElementAppendedAgain() {
  Temperatures m;
  torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(1e-3));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'temps.0' twice (also as 'temps.2'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-13]]:12: note: 'temps.0' and 'temps.2' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-12]]:12: note: and here
}

// A new prompt per task.
struct FreshPromptsImpl : torch::nn::Module {
  FreshPromptsImpl() {
    for (const std::string task : {"sst2", "mnli", "rte"})
      prompts->insert(task, torch::randn({4, 8}));
    register_module("prompts", prompts);
  }
  torch::nn::ParameterDict prompts;
};
TORCH_MODULE(FreshPrompts);

void NegativeFreshPerKey() {
  FreshPrompts m;
  torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(1e-2));
}

// The second task starts from a copy of the first task's prompt.
struct WarmStartImpl : torch::nn::Module {
  WarmStartImpl() {
    prompts->insert("mnli", torch::randn({4, 8}));
    prompts->insert("rte", prompts["mnli"].clone());
    register_module("prompts", prompts);
  }
  torch::nn::ParameterDict prompts;
};
TORCH_MODULE(WarmStart);

void NegativeClonedPrompt() {
  WarmStart m;
  torch::optim::Adam opt(m->parameters(), torch::optim::AdamOptions(1e-2));
}

// Different tensors under different keys, and a list of fresh tensors.
struct DistinctImpl : torch::nn::Module {
  DistinctImpl(torch::Tensor a, torch::Tensor b) {
    scales->insert("query", a);
    scales->insert("key", b);
    temps->append(torch::ones({1}));
    temps->append(torch::ones({1}));
    register_module("scales", scales);
    register_module("temps", temps);
  }
  torch::nn::ParameterDict scales;
  torch::nn::ParameterList temps;
};
TORCH_MODULE(Distinct);

void NegativeDistinctTensors(torch::Tensor a, torch::Tensor b) {
  Distinct m(a, b);
  torch::optim::SGD opt(m->parameters(), torch::optim::SGDOptions(0.1));
}
