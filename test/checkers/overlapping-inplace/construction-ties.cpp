// RUN: %check_clang_tidy %s libtorch-overlapping-inplace %t -- -- %mock_torch

#include <torch/torch.h>

#include <vector>

namespace F = torch::nn::functional;

// Note [Tensors made one at construction]: two names a construction bound
// to one handle are one tensor, so an operation that writes one of them
// while reading the other overlaps itself.

// Positive: a constructor registers one zeros tensor as the bias and as
// the running mean that batch_norm updates in training.

struct FrozenNormImpl : torch::nn::Module {
  explicit FrozenNormImpl(int64_t channels) {
    auto zeros = torch::zeros({channels});
    auto ones = torch::ones({channels});
    scale = register_buffer("scale", ones);
    shift = register_buffer("shift", zeros);
    mean = register_buffer("mean", zeros);
    var = register_buffer("var", torch::ones({channels}));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return at::batch_norm(x, scale, shift, mean, var, true, 0.1, 1e-5, false);
    // CHECK-NOTES: :[[@LINE-1]]:12: warning: bias 'shift' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'mean'; no run-time check covers this and the result depends on the order of reads and writes [libtorch-overlapping-inplace]
    // CHECK-NOTES: :[[@LINE-7]]:13: note: 'shift' and 'mean' are one tensor: both are bound to 'zeros'
    // CHECK-FIXES: return at::batch_norm(x, scale, shift.clone(), mean, var, true, 0.1, 1e-5, false);
  }
  torch::Tensor scale, shift, mean, var;
};

// Positive: the statistics are two elements of a vector filled with one
// handle.

void PositiveFilledLocal(const torch::Tensor &obs) {
  std::vector<torch::Tensor> stats(2, torch::zeros({3}));
  F::batch_norm(obs, stats[0], stats[1], F::BatchNormFuncOptions().training(true));
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: running_var 'stats[1]' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'stats[0]'
  // CHECK-NOTES: :[[@LINE-3]]:30: note: every element of 'stats' is one tensor: it is filled with copies of one handle here
}

class RunningStats {
public:
  explicit RunningStats(int64_t dim) : stats_(2, torch::zeros({dim})) {}
  torch::Tensor normalise(const torch::Tensor &obs) {
    return F::batch_norm(obs, stats_[0], stats_[1],
                         F::BatchNormFuncOptions().training(true));
    // CHECK-NOTES: :[[@LINE-2]]:12: warning: running_var 'stats_[1]' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'stats_[0]'
    // CHECK-NOTES: :[[@LINE-5]]:40: note: every element of 'stats_' is one tensor
  }

private:
  std::vector<torch::Tensor> stats_;
};

// Negative: each member gets its own tensor.

struct ClonedNormImpl : torch::nn::Module {
  explicit ClonedNormImpl(int64_t channels) {
    auto zeros = torch::zeros({channels});
    shift = register_buffer("shift", zeros.clone());
    mean = register_buffer("mean", zeros.clone());
    var = register_buffer("var", torch::ones({channels}));
    scale = register_buffer("scale", torch::ones({channels}));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return at::batch_norm(x, scale, shift, mean, var, true, 0.1, 1e-5, false);
  }
  torch::Tensor scale, shift, mean, var;
};

// Negative: the same factory call written twice makes two tensors.

struct TwoZerosImpl : torch::nn::Module {
  explicit TwoZerosImpl(int64_t channels) {
    shift = register_buffer("shift", torch::zeros({channels}));
    mean = register_buffer("mean", torch::zeros({channels}));
  }
  torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &var) {
    return at::batch_norm(x, {}, shift, mean, var, true, 0.1, 1e-5, false);
  }
  torch::Tensor shift, mean;
};

// Negative: an element is given its own tensor after the fill.

void NegativeRefilledElement(const torch::Tensor &obs) {
  std::vector<torch::Tensor> stats(2, torch::zeros({3}));
  stats[1] = torch::ones({3});
  F::batch_norm(obs, stats[0], stats[1], F::BatchNormFuncOptions().training(true));
}

// Negative: the member is assigned a new tensor outside the constructor.

struct ResetNormImpl : torch::nn::Module {
  explicit ResetNormImpl(int64_t channels) {
    auto zeros = torch::zeros({channels});
    shift = register_buffer("shift", zeros);
    mean = register_buffer("mean", zeros);
  }
  void reset_statistics() { mean = torch::zeros_like(shift); }
  torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &var) {
    return at::batch_norm(x, {}, shift, mean, var, true, 0.1, 1e-5, false);
  }
  torch::Tensor shift, mean;
};

// Negative: not training, so nothing is written.

void NegativeEvaluation(const torch::Tensor &obs) {
  std::vector<torch::Tensor> stats(2, torch::zeros({3}));
  F::batch_norm(obs, stats[0], stats[1], F::BatchNormFuncOptions().training(false));
}
