// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

#include <torch/torch.h>

#include <vector>

// Note [Writes into tensors made one at construction]: a write through one
// of two names a construction made one tensor changes the other.

// Positive: per-layer moving averages kept in a vector filled with one
// handle are one moving average.

void PositiveFilledMovingAverages(const std::vector<torch::Tensor> &features) {
  std::vector<torch::Tensor> averages(features.size(), torch::zeros({8}));
  for (size_t i = 0; i < features.size(); ++i)
    averages[i].mul_(0.9).add_(features[i], 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: 'mul_' writes an element of 'averages' in place, but every element of 'averages' is one tensor: the write changes all of them [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-4]]:30: note: 'averages' is filled with copies of one handle here
}

// Positive: the same through a range-for over the container.

void PositiveFilledRangeFor() {
  std::vector<torch::Tensor> counters(3, torch::zeros({1}));
  for (auto &counter : counters)
    counter.add_(1);
  // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'add_' writes an element of 'counters' in place, but every element of 'counters' is one tensor
  // CHECK-NOTES: :[[@LINE-4]]:30: note: 'counters' is filled with copies of one handle here
}

// Positive: two domains' running means registered from one tensor; the
// statistics of the domain in use are updated in place.

struct DomainNormImpl : torch::nn::Module {
  explicit DomainNormImpl(int64_t channels) {
    auto zeros = torch::zeros({channels});
    source_mean = register_buffer("source_mean", zeros);
    target_mean = register_buffer("target_mean", zeros);
    var = register_buffer("var", torch::ones({channels}));
  }
  torch::Tensor forward(const torch::Tensor &x, bool target) {
    auto &mean = target ? target_mean : source_mean;
    return at::batch_norm(x, {}, {}, mean, var, true, 0.1, 1e-5, false);
    // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'batch_norm' writes member 'target_mean' in place, which is the same tensor as member 'source_mean': both are bound to 'zeros'; the write changes 'source_mean' too
    // CHECK-NOTES: :[[@LINE-8]]:19: note: 'source_mean' is bound to it here
  }
  torch::Tensor source_mean, target_mean, var;
};

// Negative: a weight tie made with register_parameter is meant; its
// updates are libtorch-shared-parameter-update's concern.

struct TiedDecoderImpl : torch::nn::Module {
  TiedDecoderImpl() {
    auto shared = torch::randn({4, 4});
    encoder_weight = register_parameter("encoder_weight", shared);
    decoder_weight = register_parameter("decoder_weight", shared);
  }
  void shrink() {
    torch::NoGradGuard no_grad;
    decoder_weight.mul_(0.5);
  }
  torch::Tensor encoder_weight, decoder_weight;
};

// Negative: the container gets other elements after the fill.

void NegativeGrownContainer(const std::vector<torch::Tensor> &features) {
  std::vector<torch::Tensor> averages(1, torch::zeros({8}));
  for (size_t i = 1; i < features.size(); ++i)
    averages.push_back(torch::zeros({8}));
  for (size_t i = 0; i < features.size(); ++i)
    averages[i].mul_(0.9).add_(features[i], 0.1);
}

void refill(std::vector<torch::Tensor> &averages);

// Negative: a function that may refill it is given the container.

void NegativePassedByReference() {
  std::vector<torch::Tensor> averages(4, torch::zeros({8}));
  refill(averages);
  averages[0].add_(1);
}

// Negative: each element is assigned its own tensor.

void NegativeAssignedElements() {
  std::vector<torch::Tensor> averages(4, torch::Tensor());
  for (auto &average : averages)
    average = torch::zeros({8});
  averages[0].add_(1);
}
