// Ground truth for Note [Snapshots of handles] and Note [Records of an
// object's state]: the real std::pair, parameters() and optimizers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %real_torch

#include <torch/torch.h>

#include <utility>
#include <vector>

void PositiveBestKeptAsHandles(torch::nn::Linear model, const torch::Tensor &x,
                               const torch::Tensor &y) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  std::pair<double, std::vector<torch::Tensor>> best{1e30, {}};
  for (int step = 0; step < 10; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    if (loss.item<double>() < best.first)
      best = {loss.item<double>(), model->parameters()};
  }
  torch::NoGradGuard no_grad;
  auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    params[i].copy_(best.second[i]);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'copy_' reads 'params[i]' and 'best.second[i]', which are one tensor: 'best' holds handles to the parameters of 'model', not copies
}

void NegativeBestKeptAsClones(torch::nn::Linear model, const torch::Tensor &x,
                              const torch::Tensor &y) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  std::pair<double, std::vector<torch::Tensor>> best{1e30, {}};
  for (int step = 0; step < 10; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model(x), y);
    loss.backward();
    opt.step();
    if (loss.item<double>() < best.first) {
      std::vector<torch::Tensor> copies;
      for (const auto &p : model->parameters())
        copies.push_back(p.detach().clone());
      best = {loss.item<double>(), copies};
    }
  }
  torch::NoGradGuard no_grad;
  auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    params[i].copy_(best.second[i]);
}

class MeanTracker {
public:
  void add(const torch::Tensor &x) {
    total_.add_(x.sum());
    count_ += x.numel();
  }
  std::pair<torch::Tensor, int64_t> state() const { return {total_, count_}; }
  // CHECK-MESSAGES: :[[@LINE-1]]:60: warning: 'state' returns a record holding a handle to member 'total_', not a copy; 'add' writes 'total_' in place
private:
  torch::Tensor total_ = torch::zeros({});
  int64_t count_ = 0;
};

// A record of one handle: a local tensor initialised with a parameter member.
float PositiveWeightDeltaAfterStep(torch::nn::Linear layer, const torch::Tensor &x) {
  torch::optim::SGD opt(layer->parameters(), 0.1);
  torch::Tensor start = layer->weight;
  layer(x).sum().backward();
  opt.step();
  return (layer->weight - start).norm().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'operator-' reads 'layer->weight' and 'start', which are one tensor: 'start' is a copy of the handle 'layer->weight', not of its values, and 'step' has changed it in place since, so 'start' is not the old values [libtorch-inplace-on-view]
}

float NegativeWeightDeltaCloned(torch::nn::Linear layer, const torch::Tensor &x) {
  torch::optim::SGD opt(layer->parameters(), 0.1);
  torch::Tensor start = layer->weight.clone();
  layer(x).sum().backward();
  opt.step();
  return (layer->weight - start).norm().item<float>();
}

// Note [A view read after its base changed]: a view of the whole tensor
// read beside the tensor after an in-place update.
class RunningMoments {
public:
  explicit RunningMoments(int64_t dim)
      : mean_(torch::zeros({dim})), m2_(torch::zeros({dim})) {}
  void update(const torch::Tensor &batch, double weight) {
    auto old_mean = mean_.expand({batch.size(0), -1});
    mean_.add_(batch.mean(0) - mean_, weight);
    m2_.add_(((batch - old_mean) * (batch - mean_)).sum(0));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'old_mean' is read after 'add_' wrote 'mean_' in place; 'old_mean' holds a view of all of it, so it reads the new values, as 'mean_' beside it does [libtorch-inplace-on-view]
  }
  void updateCloned(const torch::Tensor &batch, double weight) {
    auto old_mean = mean_.expand({batch.size(0), -1}).clone();
    mean_.add_(batch.mean(0) - mean_, weight);
    m2_.add_(((batch - old_mean) * (batch - mean_)).sum(0));
  }

private:
  torch::Tensor mean_, m2_;
};
