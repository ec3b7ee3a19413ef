// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch
// Note [Saved by a function of its arguments]: a function of the
// translation unit whose operations save its parameter saves the caller's
// argument for the backward of what the call computes. Note [Outputs of
// library modules]: a Sequential's output is a new tensor, whose holder is
// its root.

#include <torch/torch.h>

// A residual whose flux term saves its argument (pow saves its input).
torch::Tensor residual(const torch::Tensor &u, double nu) {
  auto flux = 0.5 * u.pow(2);
  return flux - nu * u;
}

void PositiveDataWriteAfterAHelperSaves(torch::nn::Sequential net, torch::Tensor x) {
  auto u = net->forward(x).squeeze(1);
  auto loss = residual(u, 0.1).pow(2).mean();
  u.data().clamp_(-1, 1);
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'clamp_' writes through 'data()' into local 'u', which 'pow' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:5: note: detached view of local 'u' created here by 'data'
  // CHECK-NOTES: :[[@LINE-4]]:15: note: 'residual' is given 'u', which 'pow' in it saves for backward
  // CHECK-NOTES: :[[@LINE-11]]:23: note: 'pow' saves its input for backward here
  loss.backward();
}

void PositiveDetachWriteAfterAHelperSaves(torch::nn::Sequential net, torch::Tensor x) {
  auto u = net->forward(x);
  auto loss = residual(u, 0.1).sum();
  u.detach().zero_();
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'zero_' writes through 'detach()' into local 'u', which 'pow' saved for backward; 'detach()' shares the storage and the version counter, so backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:5: note: detached view of local 'u' created here by 'detach'
  // CHECK-NOTES: :[[@LINE-4]]:15: note: 'residual' is given 'u', which 'pow' in it saves for backward
  // CHECK-NOTES: :[[@LINE-22]]:23: note: 'pow' saves its input for backward here
  loss.backward();
}

// mul saves its input only if the other operand requires grad: a possible
// save, reported for a write through data() only.
torch::Tensor scaled(const torch::Tensor &u, const torch::Tensor &w) {
  return u.mul(w);
}

void PositivePossibleSaveThroughData(torch::nn::Sequential net, torch::Tensor x,
                                     torch::Tensor w) {
  auto u = net->forward(x);
  auto loss = scaled(u, w).sum();
  u.data().zero_();
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'zero_' writes through 'data()' into local 'u', which 'mul' may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:5: note: detached view of local 'u' created here by 'data'
  // CHECK-NOTES: :[[@LINE-4]]:15: note: 'scaled' is given 'u', which 'mul' in it may save for backward
  // CHECK-NOTES: :[[@LINE-11]]:12: note: 'mul' may save its input for backward here
  loss.backward();
}

void NegativePossibleSaveThroughDetach(torch::nn::Sequential net, torch::Tensor x,
                                       torch::Tensor w) {
  auto u = net->forward(x);
  auto loss = scaled(u, w).sum();
  u.detach().zero_();
  loss.backward();
}

// A helper that runs without grad saves nothing.
torch::Tensor residualNoGrad(const torch::Tensor &u) {
  torch::NoGradGuard no_grad;
  return u.pow(2);
}

void NegativeHelperWithoutGrad(torch::nn::Sequential net, torch::Tensor x) {
  auto u = net->forward(x);
  auto loss = residualNoGrad(u).sum() + u.sum();
  u.data().zero_();
  loss.backward();
}

// The helper saves its own copy of the argument.
torch::Tensor residualOfCopy(torch::Tensor u) {
  u = u.clone();
  return u.pow(2);
}

void NegativeHelperRebindsItsParameter(torch::nn::Sequential net, torch::Tensor x) {
  auto u = net->forward(x);
  auto loss = residualOfCopy(u).sum();
  u.data().zero_();
  loss.backward();
}

// The write comes after the backward.
void NegativeWriteAfterBackward(torch::nn::Sequential net, torch::Tensor x) {
  auto u = net->forward(x);
  auto loss = residual(u, 0.1).sum();
  loss.backward();
  u.data().zero_();
}
