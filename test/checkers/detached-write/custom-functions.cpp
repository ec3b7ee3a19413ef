// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch
// A custom autograd Function saves what its forward's save_for_backward
// names among its parameters, from the arguments apply is given (Note
// [Custom autograd functions]).

#include <torch/torch.h>

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

struct QuantLinearFn : torch::autograd::Function<QuantLinearFn> {
  static torch::Tensor forward(AutogradContext *ctx, torch::Tensor x,
                               torch::Tensor w) {
    ctx->save_for_backward({x, w});
    return x.matmul(w.t());
  }
  static variable_list backward(AutogradContext *ctx, variable_list grads);
};

// Saves nothing: its backward needs no input.
struct ScaleFn : torch::autograd::Function<ScaleFn> {
  static torch::Tensor forward(AutogradContext *ctx, torch::Tensor x,
                               torch::Tensor w) {
    return x.matmul(w.t());
  }
  static variable_list backward(AutogradContext *ctx, variable_list grads);
};

void snap(torch::Tensor &w) { w.data().clamp_(-1, 1); }

// The weight is snapped through data() between the forward and backward.
void PositiveSnapBeforeBackward(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = QuantLinearFn::apply(x, w).sum();
  w.data().clamp_(-1, 1);
  // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'clamp_' writes through 'data()' into local 'w', which 'QuantLinearFn' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:5: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-4]]:15: note: 'QuantLinearFn' saves 'w' for backward here
  loss.backward();
}

// The same by a helper.
void PositiveHelperSnap(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = QuantLinearFn::apply(x, w).sum();
  snap(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'snap' writes through 'data()' into local 'w', which 'QuantLinearFn' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-19]]:33: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-20]]:40: note: 'snap' writes its parameter 'w' in place here
  // CHECK-NOTES: :[[@LINE-5]]:15: note: 'QuantLinearFn' saves 'w' for backward here
  loss.backward();
}

// The input written in place: backward throws.
void PositiveInputWritten(const torch::Tensor &w) {
  auto x = torch::randn({4, 4}).requires_grad_();
  auto h = x * 2;
  auto loss = QuantLinearFn::apply(h, w).sum();
  h.mul_(0.5);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'mul_' writes in place into local 'h', which 'QuantLinearFn' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-3]]:15: note: 'QuantLinearFn' saves 'h' for backward here
  loss.backward();
}

// After the backward.
void NegativeSnapAfterBackward(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = QuantLinearFn::apply(x, w).sum();
  loss.backward();
  w.data().clamp_(-1, 1);
}

// A Function that saves nothing.
void NegativeNothingSaved(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = ScaleFn::apply(x, w).sum();
  w.data().clamp_(-1, 1);
  loss.backward();
}
