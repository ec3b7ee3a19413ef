// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch
// A function of the translation unit that writes its parameter through
// data() or detach() writes the caller's tensor through a detached handle
// (Note [Helpers that write through data() or detach()]).

#include <torch/torch.h>

#include <functional>

void clampRows(torch::Tensor &w) { w.data().clamp_(-1, 1); }

// Weight clipping in a helper, between the forward and the backward.
void PositiveHelperClipsBeforeBackward(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  clampRows(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clampRows' writes through 'data()' into local 'w', which 'matmul' may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-8]]:38: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-9]]:45: note: 'clampRows' writes its parameter 'w' in place here
  // CHECK-NOTES: :[[@LINE-5]]:17: note: 'matmul' may save 'w' for backward here
  loss.backward();
}

// The helper hands the detached handle to another helper.
void scaleInPlace(torch::Tensor t, double s) { t.mul_(s); }
void renormalise(torch::Tensor &w) { scaleInPlace(w.data(), 0.5); }

void PositiveNestedHelpers(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = torch::relu(x.matmul(w)).sum();
  renormalise(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'renormalise' writes through 'data()' into local 'w', which 'matmul' may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-7]]:53: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-8]]:38: note: 'renormalise' writes its parameter 'w' in place here
  // CHECK-NOTES: :[[@LINE-5]]:29: note: 'matmul' may save 'w' for backward here
  loss.backward();
}

// A local lambda that takes the tensor.
void PositiveLambdaParameter(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto clip = [](torch::Tensor &t) { t.data().clamp_(-1, 1); };
  auto loss = x.matmul(w).sum();
  clip(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip' writes through 'data()' into local 'w', which 'matmul' may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-4]]:40: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-5]]:47: note: 'clip' writes its parameter 't' in place here
  // CHECK-NOTES: :[[@LINE-5]]:17: note: 'matmul' may save 'w' for backward here
  loss.backward();
}

// detach() of a saved result, in a helper: backward throws. The helper
// alone is quiet: its statement does nothing but write the caller's tensor
// (Note [Statements that only write through detach()]).
void sharpen(const torch::Tensor &p) { p.detach().mul_(2); }

void PositiveDetachOfSavedResult(const torch::Tensor &logits) {
  auto w = torch::randn({4}).requires_grad_();
  auto probs = torch::sigmoid(logits.mul(w));
  sharpen(probs);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'sharpen' writes through 'detach()' into local 'probs', which 'sigmoid' saved for backward; 'detach()' shares the storage and the version counter, so backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-7]]:42: note: detached view of local 'probs' created here by 'detach'
  // CHECK-NOTES: :[[@LINE-8]]:51: note: 'sharpen' writes its parameter 'p' in place here
  // CHECK-NOTES: :[[@LINE-5]]:16: note: 'sigmoid' saves its result for backward here
  probs.sum().backward();
}

// Negative: the helper runs after the backward.
void NegativeAfterBackward(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  loss.backward();
  clampRows(w);
}

// Negative: the helper writes a copy.
void clampCopy(const torch::Tensor &w) {
  auto c = w.detach().clone();
  c.clamp_(-1, 1);
}

void NegativeHelperWritesCopy(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  clampCopy(w);
  loss.backward();
}

// Negative: the tensor the helper writes is not in the graph.
void NegativeNotSaved(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto bias = torch::zeros({4});
  auto loss = x.matmul(w).sum();
  clampRows(bias);
  loss.backward();
}

// Negative: a statement that only writes through detach(), and a lambda
// stored for later (Note [Lambdas stored for later]).
void emaUpdate(const torch::Tensor &target, const torch::Tensor &value) {
  target.detach().mul_(0.99).add_(value, 0.01);
}

struct Quantizer : torch::nn::Module {
  torch::Tensor codebook;
  std::function<void()> pending;
  torch::Tensor forward(const torch::Tensor &z) {
    auto out = z.matmul(codebook);
    pending = [cb = codebook, z] { emaUpdate(cb, z.mean()); };
    return out;
  }
};

// Positive: the detached handle's write is kept.
torch::Tensor PositiveWrittenResultUsed(const torch::Tensor &x) {
  return x.detach().mul_(2);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'mul_' writes through 'detach()' into parameter 'x'; 'detach()' shares the storage, it does not copy, so the caller's tensor changes too [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:12: note: detached view of parameter 'x' created here by 'detach'
  // CHECK-FIXES: return x.detach().clone().mul_(2);
}
