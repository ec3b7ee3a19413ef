// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A list filled in a loop over modules() whose inner parameters() recurses
// holds a parameter once per module on its path, even when the loop splits
// it into groups by the parameter's name (Note [Lists collected over
// modules()]).

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

struct StemImpl : torch::nn::Module {
  StemImpl() { conv = register_module("conv", torch::nn::Linear(4, 4)); }
  torch::nn::Linear conv{nullptr};
};
TORCH_MODULE(Stem);

struct ModelImpl : torch::nn::Module {
  ModelImpl() {
    stem = register_module("stem", Stem());
    head = register_module("head", torch::nn::Linear(4, 2));
  }
  Stem stem{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Model);

// Weight-decay groups split by name: a bias goes to one list on every visit.
void PositiveDecayGroups(Model &model) {
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto &item : model->named_modules()) {
    for (const auto &param : item.value()->named_parameters()) {
      // CHECK-FIXES: for (const auto &param : item.value()->named_parameters(false)) {
      if (param.key().find("bias") != std::string::npos)
        no_decay.push_back(param.value());
      else
        decay.push_back(param.value());
    }
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decay, std::make_unique<torch::optim::SGDOptions>(0.1));
  groups.emplace_back(no_decay, std::make_unique<torch::optim::SGDOptions>(0.1));
  torch::optim::SGD opt(groups, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from parameters collected over named_modules(): 'named_parameters' recurses into submodules, so 'decay' holds parameter 'stem.conv.weight' 3 times and each step() updates it 3 times; pass 'false' to collect each module's own parameters
  // CHECK-NOTES: :[[@LINE-13]]:44: note: 'decay' is filled here, once for each module on a parameter's path
}

// modules() and parameters(), a list given straight to the optimizer, and a
// filter on the tensor itself.
void PositiveTrainableList(Model &model) {
  std::vector<torch::Tensor> trainable;
  for (auto &m : model->modules())
    for (auto &p : m->parameters()) {
      // CHECK-FIXES: for (auto &p : m->parameters(false)) {
      if (!p.requires_grad())
        continue;
      trainable.push_back(p);
    }
  torch::optim::Adam opt(trainable, torch::optim::AdamOptions(1e-3));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from parameters collected over modules(): 'parameters' recurses into submodules, so 'trainable' holds parameter 'stem.conv.weight' 3 times
  // CHECK-NOTES: :[[@LINE-8]]:23: note: 'trainable' is filled here
}

// Without the root, a parameter two registrations deep is collected twice;
// the list is handed to add_param_group and to clip_grad_norm_.
void PositiveWithoutSelf(Model &model, torch::optim::SGD &opt) {
  std::vector<torch::Tensor> extra;
  for (const auto &item : model->named_modules("", /*include_self=*/false))
    for (const auto &param : item.value()->named_parameters(true))
      // CHECK-FIXES: for (const auto &param : item.value()->named_parameters(false))
      extra.push_back(param.value());
  opt.add_param_group(torch::optim::OptimizerParamGroup(extra));
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'add_param_group' is given parameters collected over named_modules(): 'named_parameters' recurses into submodules, so 'extra' holds parameter 'stem.conv.weight' 2 times and each step() updates it 2 times
  // CHECK-NOTES: :[[@LINE-5]]:44: note: 'extra' is filled here
  torch::nn::utils::clip_grad_norm_(extra, 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given parameters collected over named_modules(): 'named_parameters' recurses into submodules, so 'extra' holds parameter 'stem.conv.weight' 2 times and the total norm counts it 2 times
  // CHECK-NOTES: :[[@LINE-8]]:44: note: 'extra' is filled here
}

void NegativeOwnParameters(Model &model) {
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto &item : model->named_modules())
    for (const auto &param : item.value()->named_parameters(/*recurse=*/false)) {
      if (param.key() == "bias")
        no_decay.push_back(param.value());
      else
        decay.push_back(param.value());
    }
  torch::optim::SGD opt({torch::optim::OptimizerParamGroup(decay),
                         torch::optim::OptimizerParamGroup(no_decay)},
                        torch::optim::SGDOptions(0.1));
}

// A branch on the module picks out leaves, which hold their own parameters.
void NegativeLeafModules(Model &model) {
  std::vector<torch::Tensor> params;
  for (const auto &item : model->named_modules()) {
    if (!item.value()->as<torch::nn::Linear>())
      continue;
    for (const auto &param : item.value()->named_parameters())
      params.push_back(param.value());
  }
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// A condition on what the outer loop derives from the module, here its name.
void NegativeRootOnly(Model &model) {
  std::vector<torch::Tensor> params;
  for (const auto &item : model->named_modules()) {
    const std::string &name = item.key();
    for (const auto &param : item.value()->named_parameters())
      if (name.empty())
        params.push_back(param.value());
  }
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// Only the children: direct submodules do not nest in each other here.
void NegativeChildren(Model &model) {
  std::vector<torch::Tensor> params;
  for (const auto &child : model->children())
    for (auto &p : child->parameters())
      params.push_back(p);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// The list is filled per module and stepped inside the loop: one module's
// optimizer holds each of its parameters once.
void NegativeListPerModule(Model &model) {
  for (auto &m : model->modules()) {
    std::vector<torch::Tensor> own;
    for (auto &p : m->parameters())
      own.push_back(p);
    torch::optim::SGD opt(own, torch::optim::SGDOptions(0.1));
  }
}

// A flat model: no parameter is below a submodule that holds it.
void NegativeFlat() {
  torch::nn::Linear fc(4, 4);
  std::vector<torch::Tensor> params;
  for (auto &m : fc->modules())
    for (auto &p : m->parameters())
      params.push_back(p);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// The loop breaks out after the root.
void NegativeBreak(Model &model) {
  std::vector<torch::Tensor> params;
  for (auto &m : model->modules()) {
    for (auto &p : m->parameters())
      params.push_back(p);
    break;
  }
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
}

// The list is picked by a conditional expression.
void PositivePickedList(Model &model) {
  std::vector<torch::Tensor> decay, no_decay;
  for (const auto &item : model->named_modules())
    for (const auto &param : item.value()->named_parameters()) {
      // CHECK-FIXES: for (const auto &param : item.value()->named_parameters(false)) {
      bool is_bias = param.key().find("bias") != std::string::npos;
      (is_bias ? no_decay : decay).push_back(param.value());
    }
  torch::optim::SGD opt({torch::optim::OptimizerParamGroup(decay),
                         torch::optim::OptimizerParamGroup(no_decay)},
                        torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-3]]:21: warning: 'SGD' is built from parameters collected over named_modules(): 'named_parameters' recurses into submodules, so 'decay' holds parameter 'stem.conv.weight' 3 times
  // CHECK-NOTES: :[[@LINE-9]]:44: note: 'decay' is filled here
}

// apply() walks the tree as modules() does, root first (Note [Walks over
// modules]): the lambda's module parameter is the loop variable.
void PositiveApply(Model &model) {
  std::vector<torch::Tensor> params;
  model->apply([&](const std::string &name, torch::nn::Module &m) {
    for (const auto &param : m.named_parameters())
      // CHECK-FIXES: for (const auto &param : m.named_parameters(false))
      params.push_back(param.value());
  });
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-3));
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from parameters collected over apply(): 'named_parameters' recurses into submodules, so 'params' holds parameter 'stem.conv.weight' 3 times and each step() updates it 3 times; pass 'false' to collect each module's own parameters
  // CHECK-NOTES: :[[@LINE-6]]:32: note: 'params' is filled here, once for each module on a parameter's path
}

// A hand-written update in an apply() lambda.
void PositiveApplyUpdate(Model &model) {
  model->apply([](torch::nn::Module &m) {
    torch::NoGradGuard no_grad;
    for (auto &p : m.parameters())
      // CHECK-FIXES: for (auto &p : m.parameters(false))
      p.mul_(0.99);
    // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'mul_' updates parameter 'stem.conv.weight' in place 3 times per pass over apply(): 'parameters' recurses into submodules, so each module that contains a parameter visits it again; pass 'false' to visit each module's own parameters
  });
}

void NegativeApplyOwnParameters(Model &model) {
  std::vector<torch::Tensor> params;
  model->apply([&](torch::nn::Module &m) {
    for (auto &p : m.parameters(/*recurse=*/false))
      params.push_back(p);
  });
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-3));
}

// A filter on the module's name picks out modules: the list may hold each
// parameter once.
void NegativeApplyNameFilter(Model &model) {
  std::vector<torch::Tensor> params;
  model->apply([&](const std::string &name, torch::nn::Module &m) {
    if (!name.empty())
      return;
    for (auto &p : m.parameters())
      params.push_back(p);
  });
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-3));
}
