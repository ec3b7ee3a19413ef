// RUN: %check_clang_tidy --fix-notes %s libtorch-inplace-on-view %t -- -- %mock_torch

// Note [Snapshots of handles], for a record of one handle: a local tensor
// initialised with another tensor's handle is that tensor. Kept as the old
// value and compared with the tensor after an in-place write, it reads the
// new values: the difference is zero.

#include <torch/torch.h>

float report(const torch::Tensor &t);

float PositiveDecayedWeightDelta(torch::Tensor weight) {
  auto previous = weight;
  // CHECK-FIXES: auto previous = weight.clone();
  weight.mul_(0.9);
  return report(weight - previous);
  // CHECK-NOTES: :[[@LINE-1]]:24: warning: 'operator-' reads 'weight' and 'previous', which are one tensor: 'previous' is a copy of the handle 'weight', not of its values, and 'mul_' has changed it in place since, so 'previous' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-5]]:19: note: 'previous' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-4]]:10: note: 'mul_' writes it in place here
}

float PositiveStepThenUpdateSize(torch::nn::Linear layer, const torch::Tensor &x) {
  torch::optim::SGD opt(layer->parameters(), 0.1);
  torch::Tensor start = layer->weight;
  // CHECK-FIXES: torch::Tensor start = layer->weight.clone();
  layer(x).sum().backward();
  opt.step();
  return report(layer->weight - start);
  // CHECK-NOTES: :[[@LINE-1]]:31: warning: 'operator-' reads 'layer->weight' and 'start', which are one tensor: 'start' is a copy of the handle 'layer->weight', not of its values, and 'step' has changed it in place since, so 'start' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-6]]:25: note: 'start' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-4]]:7: note: 'step' writes it in place here
}

void PositiveRestoreIntoItself(torch::Tensor state, bool diverged) {
  auto saved = state;
  // CHECK-FIXES: auto saved = state.clone();
  state.add_(torch::ones({4}));
  if (diverged)
    state.copy_(saved);
  // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'copy_' reads 'state' and 'saved', which are one tensor: 'saved' is a copy of the handle 'state', not of its values, and 'add_' has changed it in place since, so 'saved' is not the old values [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-6]]:16: note: 'saved' takes the handle here; clone it to keep the values
  // CHECK-NOTES: :[[@LINE-5]]:9: note: 'add_' writes it in place here
}

// Near-misses.
float NegativeCloned(torch::Tensor weight) {
  auto previous = weight.clone();
  weight.mul_(0.9);
  return report(weight - previous);
}

float NegativeReadBeforeTheWrite(torch::Tensor weight) {
  auto previous = weight;
  float delta = report(weight - previous);
  weight.mul_(0.9);
  return delta;
}

float NegativeGivenAnotherTensor(torch::Tensor weight) {
  auto previous = weight;
  previous = weight * 1.0;
  weight.mul_(0.9);
  return report(weight - previous);
}

// Another module's weight is another tensor.
float NegativeOtherModule(torch::nn::Linear a, torch::nn::Linear b,
                          const torch::Tensor &x) {
  torch::optim::SGD opt(a->parameters(), 0.1);
  torch::Tensor start = b->weight;
  a(x).sum().backward();
  opt.step();
  return report(a->weight - start);
}
