// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch
// A tensor kept with detach() or data(), or as a view of all of its
// elements (unsqueeze, view, t), shares the storage as a copy of its handle
// does: set against the tensor after an in-place write of it, it reads the
// new values on both sides (Note [Snapshots of handles]).

#include <torch/torch.h>

// Velocities from positions kept with detach() before the step.
class Particles {
public:
  void step(double dt) {
    auto x_prev = x_.detach();
    x_.add_(v_, dt);
    v_ = (x_ - x_prev) / dt;
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'operator-' reads 'x_' and 'x_prev', which are one tensor: 'x_prev' is 'detach()' of 'x_', which shares its storage rather than copying it, and 'add_' has changed it in place since, so 'x_prev' is not the old values [libtorch-inplace-on-view]
    // CHECK-NOTES: :[[@LINE-4]]:19: note: 'x_prev' takes the handle here; clone it to keep the values
    // CHECK-NOTES: :[[@LINE-4]]:8: note: 'add_' writes it in place here
  }

private:
  torch::Tensor x_, v_;
};

// A convergence test against the previous iterate.
bool PositiveConvergence(torch::Tensor x, const torch::Tensor &m) {
  auto previous = x.detach();
  x.mul_(m);
  return x.allclose(previous);
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'allclose' reads 'x' and 'previous', which are one tensor: 'previous' is 'detach()' of 'x', which shares its storage rather than copying it, and 'mul_' has changed it in place since, so 'previous' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-4]]:19: note: 'previous' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-4]]:5: note: 'mul_' writes it in place here
}

// data() shares the storage too; the shift is tested with torch::equal.
bool PositiveDataEqual(torch::Tensor centres, const torch::Tensor &delta) {
  auto old = centres.data();
  centres.add_(delta);
  return torch::equal(centres, old);
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'equal' reads 'centres' and 'old', which are one tensor: 'old' is 'data()' of 'centres', which shares its storage rather than copying it, and 'add_' has changed it in place since, so 'old' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-4]]:14: note: 'old' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-4]]:11: note: 'add_' writes it in place here
}

// A method form of the difference.
torch::Tensor PositiveMethodSub(torch::Tensor h, const torch::Tensor &u) {
  auto h0 = h.detach();
  h.mul_(u);
  return h.sub(h0);
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'sub' reads 'h' and 'h0', which are one tensor: 'h0' is 'detach()' of 'h', which shares its storage rather than copying it, and 'mul_' has changed it in place since, so 'h0' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-4]]:13: note: 'h0' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-4]]:5: note: 'mul_' writes it in place here
}

// The old mean kept as a broadcastable view.
torch::Tensor PositiveUnsqueezedMean(torch::Tensor mean, const torch::Tensor &elite) {
  auto mean_old = mean.unsqueeze(0);
  mean.copy_(elite.mean(0));
  return mean - mean_old.squeeze(0);
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'operator-' reads 'mean' and 'mean_old', which are one tensor: 'mean_old' is 'unsqueeze()' of 'mean', which shares its storage rather than copying it, and 'copy_' has changed it in place since, so 'mean_old' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-4]]:19: note: 'mean_old' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-4]]:8: note: 'copy_' writes it in place here
}

// reshape may copy, so it is no record of the handle.
torch::Tensor NegativeReshape(torch::Tensor mean, const torch::Tensor &elite) {
  auto mean_old = mean.reshape({1, -1});
  mean.copy_(elite.mean(0));
  return mean - mean_old.squeeze(0);
}

// A clone keeps the old values.
torch::Tensor NegativeClone(torch::Tensor x) {
  auto prev = x.detach().clone();
  x.add_(1);
  return x - prev;
}

// The alias read alone after the write is meant to see the update.
double NegativeAliasReadAlone(torch::Tensor x) {
  auto shown = x.detach();
  x.add_(1);
  return shown.sum().item<double>();
}

// No write between: the straight-through difference.
torch::Tensor NegativeStraightThrough(const torch::Tensor &q, torch::Tensor x) {
  auto frozen = x.detach();
  return q + (x - frozen);
}

// The tensor is rebound out of place, so the alias keeps the old values.
torch::Tensor NegativeRebound(torch::Tensor x) {
  auto prev = x.detach();
  x = x + 1;
  return x - prev;
}

// A sum of the two is no comparison.
torch::Tensor NegativeSum(torch::Tensor x) {
  auto alias = x.detach();
  x.mul_(2);
  return x + alias;
}
