// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A member optimizer holds what its member initialiser gives it, then the
// groups its constructor adds (Note [Optimizers that are members]).

#include <torch/torch.h>
#include <memory>
#include <vector>

struct MultiTaskImpl : torch::nn::Module {
  MultiTaskImpl() {
    trunk = register_module("trunk", torch::nn::Linear(4, 4));
    log_vars = register_parameter("log_vars", torch::zeros({2}));
  }
  torch::nn::Linear trunk{nullptr};
  torch::Tensor log_vars;
};
TORCH_MODULE(MultiTask);

// The task weights are in model->parameters() already.
class Trainer {
public:
  explicit Trainer(MultiTask net)
      : net_(net), optimizer_(net_->parameters(), torch::optim::AdamOptions(1e-3)) {
    optimizer_.add_param_group(torch::optim::OptimizerParamGroup({net_->log_vars}));
    // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'add_param_group' adds parameter 'net_->log_vars', which the optimizer already holds (as 'log_vars') in an earlier group; each step() updates it twice; leave it out of the new group or remove it from the earlier one [libtorch-shared-parameter-update]
    // CHECK-NOTES: :12:16: note: 'log_vars' and 'net_->log_vars' are the same tensor, registered here
    // CHECK-NOTES: :[[@LINE-3]]:67: note: and here
  }
  // Gradual unfreezing in a later method: the trunk is in the first group.
  void unfreeze() {
    optimizer_.add_param_group(torch::optim::OptimizerParamGroup(net_->trunk->parameters()));
    // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'add_param_group' adds parameter 'weight', which the optimizer already holds (as 'trunk.weight') in an earlier group; each step() updates it twice; leave it out of the new group or remove it from the earlier one [libtorch-shared-parameter-update]
    // CHECK-NOTES: :23:37: note: the parameters of 'net_' include those of its submodule 'trunk'
    // CHECK-NOTES: :[[@LINE-3]]:79: note: and the submodule's are added again here
  }

private:
  MultiTask net_;
  torch::optim::Adam optimizer_;
};

// A tensor the first group does not hold.
class TrainerWithTemperature {
public:
  explicit TrainerWithTemperature(MultiTask net)
      : net_(net), optimizer_(net_->trunk->parameters(), torch::optim::AdamOptions(1e-3)) {
    optimizer_.add_param_group(torch::optim::OptimizerParamGroup({net_->log_vars}));
  }

private:
  MultiTask net_;
  torch::optim::Adam optimizer_;
};

// Groups edited by hand elsewhere in the class are not followed.
class TrainerThatResets {
public:
  explicit TrainerThatResets(MultiTask net)
      : net_(net), optimizer_(net_->parameters(), torch::optim::AdamOptions(1e-3)) {}
  void reset() { optimizer_.param_groups().clear(); }
  void add_task_weights() {
    optimizer_.add_param_group(torch::optim::OptimizerParamGroup({net_->log_vars}));
  }

private:
  MultiTask net_;
  torch::optim::Adam optimizer_;
};

// Two constructors give the optimizer different lists: not followed.
class TrainerTwoWays {
public:
  explicit TrainerTwoWays(MultiTask net)
      : net_(net), optimizer_(net_->parameters(), torch::optim::AdamOptions(1e-3)) {}
  TrainerTwoWays(MultiTask net, int)
      : net_(net), optimizer_(net_->trunk->parameters(), torch::optim::AdamOptions(1e-3)) {}
  void add_task_weights() {
    optimizer_.add_param_group(torch::optim::OptimizerParamGroup({net_->log_vars}));
  }

private:
  MultiTask net_;
  torch::optim::Adam optimizer_;
};
