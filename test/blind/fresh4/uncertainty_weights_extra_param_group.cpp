// CASE: a multi-task model learns homoscedastic-uncertainty task weights
//       (log variances registered as a parameter of the model); the trainer
//       builds AdamW over model->parameters() and then, to give the task
//       weights a larger learning rate and no decay, add_param_group()s them
//       again: libtorch's duplicate check only looks at optimizer state,
//       which is still empty, so both groups step the same tensor
// SOURCE: https://github.com/pytorch/pytorch/issues/48518 (C++
//         add_param_group does not catch a parameter already in a group);
//         multi-task trainers with learned loss weights (Kendall et al.)
// KIND: bug
// HARM: the task weights move by both groups' learning rates in one step
#include <torch/torch.h>

#include <iostream>
#include <memory>

struct MultiTaskNetImpl : torch::nn::Module {
  MultiTaskNetImpl()
      : trunk(register_module("trunk", torch::nn::Linear(10, 16))),
        depth(register_module("depth", torch::nn::Linear(16, 1))),
        semantic(register_module("semantic", torch::nn::Linear(16, 3))) {
    log_vars = register_parameter("log_vars", torch::zeros({2}));
  }
  torch::Tensor loss(const torch::Tensor& x, const torch::Tensor& depth_target, const torch::Tensor& labels) {
    auto h = torch::relu(trunk(x));
    auto l_depth = torch::mse_loss(depth(h), depth_target);
    auto l_sem = torch::cross_entropy_loss(semantic(h), labels);
    return torch::exp(-log_vars[0]) * l_depth + log_vars[0] + torch::exp(-log_vars[1]) * l_sem + log_vars[1];
  }
  torch::nn::Linear trunk, depth, semantic;
  torch::Tensor log_vars;
};
TORCH_MODULE(MultiTaskNet);

class Trainer {
 public:
  explicit Trainer(MultiTaskNet net)
      : net_(net), optimizer_(net_->parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(1e-2)) {  // BUG(libtorch-shared-parameter-update)
    auto task_weight_options = std::make_unique<torch::optim::AdamWOptions>(1e-2);
    task_weight_options->weight_decay(0.0);
    optimizer_.add_param_group(  // BUG(libtorch-shared-parameter-update)
        torch::optim::OptimizerParamGroup({net_->log_vars}, std::move(task_weight_options)));  // BUG(libtorch-shared-parameter-update)
  }

  void step(const torch::Tensor& x, const torch::Tensor& d, const torch::Tensor& y) {
    optimizer_.zero_grad();
    net_->loss(x, d, y).backward();
    optimizer_.step();  // BUG(libtorch-shared-parameter-update)
  }

 private:
  MultiTaskNet net_;
  torch::optim::AdamW optimizer_;
};

int main() {
  torch::manual_seed(0);
  MultiTaskNet net;
  Trainer trainer(net);
  auto before = net->log_vars.detach().clone();
  trainer.step(torch::randn({32, 10}), torch::randn({32, 1}), torch::randint(0, 3, {32}));
  const double moved = (net->log_vars - before).abs().max().item<double>();
  std::cout << "log_vars moved " << moved << " in one step (their group's lr is 0.01)\n";
  if (moved > 0.0105)
    std::cout << "HARM: the task weights moved " << moved
              << " in one step: stepped by the 0.001 group and again by the 0.01 group\n";
  return 0;
}
