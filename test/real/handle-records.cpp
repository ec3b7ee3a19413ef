// Ground truth for Note [Snapshots of handles] with detach() and whole
// views, and Note [Forwards run only without grad], on the real headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %real_torch

#include <torch/torch.h>

#include <vector>

class Particles {
public:
  void step(double dt) {
    torch::NoGradGuard no_grad;
    auto x_prev = x_.detach();
    x_.add_(v_, dt);
    v_ = (x_ - x_prev) / dt;
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'operator-' reads 'x_' and 'x_prev', which are one tensor: 'x_prev' is 'detach()' of 'x_', which shares its storage rather than copying it, and 'add_' has changed it in place since, so 'x_prev' is not the old values [libtorch-inplace-on-view]
  }

private:
  torch::Tensor x_ = torch::rand({8, 3}), v_ = torch::zeros({8, 3});
};

torch::Tensor PositiveMeanShift(torch::Tensor mean, const torch::Tensor &elite) {
  auto mean_old = mean.unsqueeze(0);
  mean.copy_(elite.mean(0));
  return mean - mean_old.squeeze(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'operator-' reads 'mean' and 'mean_old', which are one tensor: 'mean_old' is 'unsqueeze()' of 'mean', which shares its storage rather than copying it, and 'copy_' has changed it in place since, so 'mean_old' is not the old values [libtorch-inplace-on-view]
}

torch::Tensor NegativeClonedMean(torch::Tensor mean, const torch::Tensor &elite) {
  auto mean_old = mean.unsqueeze(0).clone();
  mean.copy_(elite.mean(0));
  return mean - mean_old.squeeze(0);
}

struct ServedBlockImpl : torch::nn::Module {
  ServedBlockImpl() : fc(register_module("fc", torch::nn::Linear(8, 8))) {}
  torch::Tensor forward(const torch::Tensor &x) {
    auto branch = torch::relu(fc->forward(x));
    branch.view({branch.size(0), -1}).mul_(0.5);
    return x + branch;
  }
  torch::nn::Linear fc;
};
TORCH_MODULE(ServedBlock);

std::vector<torch::Tensor> monteCarlo(ServedBlock &block, const torch::Tensor &x) {
  c10::InferenceMode guard;
  std::vector<torch::Tensor> draws;
  for (int i = 0; i < 4; ++i)
    draws.push_back(block(x));
  return draws;
}
