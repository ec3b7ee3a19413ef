// RUN: %check_clang_tidy %s libtorch-overlapping-inplace %t -- -- %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// What libtorch's C++ API writes is measured (checks/data/
// libtorch-api-effects.json): batch_norm with training=true updates its
// running statistics in place, through the data pointer.

// Positive: one zeros tensor passed as a statistic and as the weight.

torch::Tensor PositiveStatisticIsWeight(const torch::Tensor &x) {
  auto z = torch::zeros({3});
  return at::batch_norm(x, z, z, z, torch::ones({3}), true, 0.1, 1e-5, false);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: weight 'z' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'z'; no run-time check covers this and the result depends on the order of reads and writes [libtorch-overlapping-inplace]
  // CHECK-FIXES: return at::batch_norm(x, z.clone(), z, z, torch::ones({3}), true, 0.1, 1e-5, false);
}

// Positive: one buffer for both statistics, through the functional form.

torch::Tensor PositiveOneBufferForBothStatistics(const torch::Tensor &x) {
  auto stats = torch::zeros({3});
  return F::batch_norm(x, stats, stats,
                       F::BatchNormFuncOptions().training(true));
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: running_var 'stats' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'stats'
  // Both are written: a clone would lose an update, so no fix is offered.
  // CHECK-FIXES: return F::batch_norm(x, stats, stats,
}

// Positive: a tensor handed to an options setter is an operand too, and
// options kept in a variable are read from its initializer.

torch::Tensor PositiveWeightThroughOptions(const torch::Tensor &x) {
  auto w = torch::ones({3});
  auto var = torch::ones({3});
  auto options = F::BatchNormFuncOptions().weight(w).training(true);
  return F::batch_norm(x, w, var, options);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: weight 'w' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'w'
  // CHECK-FIXES: auto options = F::BatchNormFuncOptions().weight(w.clone()).training(true);
}

// Positive: a training flag that is not a constant may be true.

torch::Tensor PositiveTrainingUnknown(const torch::Tensor &x, bool train) {
  auto z = torch::zeros({3});
  return at::batch_norm(x, z, torch::zeros({3}), z, torch::ones({3}), train,
                        0.1, 1e-5, false);
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: weight 'z' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'z'
  // CHECK-FIXES: return at::batch_norm(x, z.clone(), torch::zeros({3}), z, torch::ones({3}), train,
}

// Negative: with training=false batch_norm writes no statistic, so sharing
// one tensor is harmless.

torch::Tensor NegativeEvaluation(const torch::Tensor &x) {
  auto z = torch::zeros({3});
  return at::batch_norm(x, z, z, z, torch::ones({3}), false, 0.1, 1e-5, false);
}

// Negative: F::BatchNormFuncOptions trains only when asked (the default is
// false).

torch::Tensor NegativeFunctionalDefault(const torch::Tensor &x) {
  auto w = torch::ones({3});
  auto var = torch::ones({3});
  return F::batch_norm(x, w, var, F::BatchNormFuncOptions().weight(w));
}

// Negative: distinct tensors.

torch::Tensor NegativeDistinctTensors(const torch::Tensor &x) {
  auto mean = torch::zeros({3});
  auto var = torch::ones({3});
  auto w = torch::ones({3});
  return F::batch_norm(
      x, mean, var, F::BatchNormFuncOptions().weight(w).bias(mean.clone()).training(true));
}
