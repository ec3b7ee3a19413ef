// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

#include <torch/torch.h>

#include <utility>
#include <vector>

// Note [Snapshots of handles]: a record built from tensor handles holds the
// tensors, not their values.

double validate(torch::nn::Linear &model);

// Positive: the best parameters are "kept" as handles, stepped in place,
// and "restored" into themselves.

void PositiveBestParametersKept(torch::nn::Linear model, const torch::Tensor &x) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  std::pair<double, std::vector<torch::Tensor>> best{1e30, {}};
  for (int epoch = 0; epoch < 10; ++epoch) {
    model(x).sum().backward();
    opt.step();
    double loss = validate(model);
    if (loss < best.first)
      best = {loss, model->parameters()};
  }
  auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    params[i].copy_(best.second[i]);
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'copy_' reads 'params[i]' and 'best.second[i]', which are one tensor: 'best' holds handles to the parameters of 'model', not copies, and 'step' has changed them in place since, so the record is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-6]]:7: note: 'best' takes the handles here; clone them to keep the values
  // CHECK-NOTES: :[[@LINE-10]]:9: note: 'step' writes them in place here
}

// Positive: a running total remembered in a struct, then the difference to
// it after the total grew in place.

struct Totals {
  torch::Tensor sum;
  torch::Tensor count;
};

torch::Tensor PositiveDifferenceToItself(const std::vector<torch::Tensor> &batches) {
  auto sum = torch::zeros({1});
  auto count = torch::zeros({1});
  Totals start{sum, count};
  for (const auto &batch : batches) {
    sum.add_(batch.sum());
    count.add_(1);
  }
  return (sum - start.sum) / (count - start.count);
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'operator-' reads 'sum' and 'start.sum', which are one tensor: 'start' holds handles to 'sum', not copies, and 'add_' has changed them in place since
  // CHECK-NOTES: :[[@LINE-7]]:15: note: 'start' takes the handles here
  // CHECK-NOTES: :[[@LINE-6]]:9: note: 'add_' writes them in place here
  // CHECK-NOTES: :[[@LINE-4]]:37: warning: 'operator-' reads 'count' and 'start.count', which are one tensor
  // CHECK-NOTES: :[[@LINE-10]]:15: note: 'start' takes the handles here
  // CHECK-NOTES: :[[@LINE-8]]:11: note: 'add_' writes them in place here
}

// Note [Records of an object's state]: a method that returns its members'
// handles in a record, while another method writes them in place.

class RunningLoss {
public:
  struct Snapshot {
    torch::Tensor sum, count;
  };
  void update(const torch::Tensor &losses) {
    sum_.add_(losses.sum());
    count_.add_(losses.numel());
  }
  Snapshot snapshot() const { return Snapshot{sum_, count_}; }
  // CHECK-NOTES: :[[@LINE-1]]:38: warning: 'snapshot' returns a record holding a handle to member 'sum_', not a copy; 'update' writes 'sum_' in place, so every record 'snapshot' returned changes with the object
  // CHECK-NOTES: :[[@LINE-5]]:10: note: 'add_' writes 'sum_' in place here
  torch::Tensor total() const { return sum_; }

private:
  torch::Tensor sum_, count_;
};

// Negative: the record holds clones.

class ClonedLoss {
public:
  struct Snapshot {
    torch::Tensor sum;
  };
  void update(const torch::Tensor &losses) { sum_.add_(losses.sum()); }
  Snapshot snapshot() const { return Snapshot{sum_.clone()}; }

private:
  torch::Tensor sum_;
};

// Negative: the record is taken after the last write.

torch::Tensor NegativeRecordAfterWrites(const std::vector<torch::Tensor> &batches) {
  auto sum = torch::zeros({1});
  for (const auto &batch : batches)
    sum.add_(batch.sum());
  Totals end{sum, sum};
  return end.sum - sum;
}

// Negative: the best parameters are cloned into the record.

void NegativeBestParametersCloned(torch::nn::Linear model, const torch::Tensor &x) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  std::pair<double, std::vector<torch::Tensor>> best{1e30, {}};
  for (int epoch = 0; epoch < 10; ++epoch) {
    model(x).sum().backward();
    opt.step();
    double loss = validate(model);
    if (loss < best.first) {
      std::vector<torch::Tensor> copies;
      for (const auto &p : model->parameters())
        copies.push_back(p.detach().clone());
      best = {loss, copies};
    }
  }
  auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    params[i].copy_(best.second[i]);
}

// Negative: restoring another model's parameters.

void NegativeOtherModel(torch::nn::Linear model, torch::nn::Linear target) {
  std::pair<int, std::vector<torch::Tensor>> kept{0, target->parameters()};
  auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i)
    params[i].copy_(kept.second[i]);
}
