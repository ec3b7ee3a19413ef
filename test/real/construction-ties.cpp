// Ground truth for Note [Tensors made one at construction]: the real
// register_buffer, at::batch_norm and std::vector.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-overlapping-inplace,libtorch-inplace-on-view %t -- -- %real_torch

#include <torch/torch.h>

#include <vector>

struct AffineNormImpl : torch::nn::Module {
  explicit AffineNormImpl(int64_t channels) {
    auto zeros = torch::zeros({channels});
    auto ones = torch::ones({channels});
    weight = register_buffer("weight", ones);
    bias = register_buffer("bias", zeros);
    running_mean = register_buffer("running_mean", zeros);
    running_var = register_buffer("running_var", torch::ones({channels}));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return torch::batch_norm(x, weight, bias, running_mean, running_var,
                             is_training(), 0.1, 1e-5, false);
    // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: bias 'bias' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'running_mean'
    // CHECK-FIXES: return torch::batch_norm(x, weight, bias.clone(), running_mean, running_var,
  }
  torch::Tensor weight, bias, running_mean, running_var;
};

void PositiveFilledAverages(const std::vector<torch::Tensor> &features) {
  std::vector<torch::Tensor> averages(features.size(), torch::zeros({8}));
  for (size_t i = 0; i < features.size(); ++i)
    averages[i].mul_(0.9).add_(features[i], 0.1);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'mul_' writes an element of 'averages' in place, but every element of 'averages' is one tensor
}

void NegativeAveragesOfTheirOwn(const std::vector<torch::Tensor> &features) {
  std::vector<torch::Tensor> averages;
  for (size_t i = 0; i < features.size(); ++i)
    averages.push_back(torch::zeros({8}));
  for (size_t i = 0; i < features.size(); ++i)
    averages[i].mul_(0.9).add_(features[i], 0.1);
}
