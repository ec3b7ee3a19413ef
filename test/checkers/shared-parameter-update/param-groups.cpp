// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Groups added to an optimizer over time: a group holding a tensor an
// earlier group holds (Note [Parameter groups added over time]).

#include <torch/torch.h>
#include <memory>
#include <vector>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl() {
    backbone = register_module("backbone", torch::nn::Linear(4, 4));
    head = register_module("head", torch::nn::Linear(4, 2));
  }
  torch::nn::Linear backbone{nullptr}, head{nullptr};
};
TORCH_MODULE(Classifier);

// Gradual unfreezing: the backbone is already in the optimizer.
void PositiveUnfreezeWholeModel(int epochs) {
  Classifier model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  for (int epoch = 0; epoch < epochs; ++epoch) {
    if (epoch == 2)
      opt.add_param_group(torch::optim::OptimizerParamGroup(
          model->backbone->parameters()));
    // CHECK-NOTES: :[[@LINE-2]]:11: warning: 'add_param_group' adds parameter 'weight', which the optimizer already holds (as 'backbone.weight') in an earlier group; each step() updates it twice; leave it out of the new group or remove it from the earlier one
    // CHECK-NOTES: :[[@LINE-6]]:32: note: the parameters of 'model' include those of its submodule 'backbone'
    // CHECK-NOTES: :[[@LINE-3]]:28: note: and the submodule's are added again here
    opt.step();
  }
}

// The optimizer behind a smart pointer; the second group repeats the first.
void PositiveSecondGroupRepeats() {
  Classifier model;
  auto opt = std::make_unique<torch::optim::Adam>(model->head->parameters());
  opt->add_param_group(torch::optim::OptimizerParamGroup(model->backbone->parameters()));
  std::vector<torch::Tensor> last = {model->backbone->weight};
  opt->add_param_group(torch::optim::OptimizerParamGroup(last));
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'add_param_group' adds parameter 'model->backbone->weight', which the optimizer already holds (as 'weight') in an earlier group
  // CHECK-NOTES: :11:44: note: 'weight' and 'model->backbone->weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-4]]:38: note: and here
}

void NegativeDisjointGroups() {
  Classifier model;
  torch::optim::SGD opt(model->head->parameters(), torch::optim::SGDOptions(0.1));
  opt.add_param_group(torch::optim::OptimizerParamGroup(model->backbone->parameters()));
}

// The earlier groups are dropped by hand.
void NegativeGroupsCleared() {
  Classifier model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  opt.param_groups().clear();
  opt.add_param_group(torch::optim::OptimizerParamGroup(model->backbone->parameters()));
}

void NegativeAnotherOptimizer() {
  Classifier model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  torch::optim::SGD other(model->head->parameters(), torch::optim::SGDOptions(0.1));
  other.add_param_group(torch::optim::OptimizerParamGroup(model->backbone->parameters()));
}
