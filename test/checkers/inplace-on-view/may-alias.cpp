// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

// A may-alias result (`reshape`, `contiguous`, `to`, ...) written in place is
// reported only when the function's facts cannot tell a copy from a view
// (Note [Layout facts]), and only when someone can observe the write.

#include <torch/torch.h>

void consume(const torch::Tensor &t);

// Negative: `contiguous()` of a tensor with permuted strides copies.
void NegativeContiguousOfTransposed(const torch::Tensor &x) {
  auto c = x.t().contiguous();
  c.clamp_(0, 1);
  auto p = x.permute({1, 0}).contiguous();
  p.zero_();
}

// Positive: after another view the layout is unknown again.
void PositiveContiguousAfterNarrow(const torch::Tensor &x) {
  auto c = x.t().narrow(0, 0, 1).contiguous();
  // CHECK-FIXES: auto c = x.t().narrow(0, 0, 1).contiguous().clone();
  c.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'zero_' writes in place to 'c', a possible alias of parameter 'x' ('contiguous' returns a view when the layout allows); whether 'x' changes depends on its layout at run time
}

// Negative: `to(kFloat)` of a tensor known to be kByte copies.
void NegativeToOtherDtype() {
  auto image = torch::zeros({3, 4, 4}, torch::kByte);
  auto scaled = image.to(torch::kFloat);
  scaled.div_(255);
  consume(image);
  auto counts = torch::zeros({4}, at::TensorOptions().dtype(torch::kLong));
  auto ratio = counts.to(torch::kFloat);
  ratio.mul_(0.5);
  consume(counts);
}

// Positive: the input's dtype is unknown, so `to` may return it.
void PositiveToUnknownDtype(const torch::Tensor &image) {
  auto scaled = image.to(torch::kFloat);
  // CHECK-FIXES: auto scaled = image.to(torch::kFloat).clone();
  scaled.div_(255);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'div_' writes in place to 'scaled', a possible alias of parameter 'image' ('to' returns a view when the layout allows); whether 'image' changes depends on its layout at run time
}

// Negative: the write's target is the result itself, and the variable is
// rebound to it, so nobody sees the old tensor change.
void NegativeRebindToResult() {
  auto frame = torch::rand({4, 4, 3});
  frame = frame.permute({2, 0, 1}).to(torch::kFloat).div_(255);
  consume(frame);
}

// Positive: another handle still holds the old tensor, whose layout the
// function does not show.
void PositiveRebindWithOtherHandle(const torch::Tensor &input) {
  auto frame = input.sigmoid();
  auto original = frame;
  frame = frame.reshape({-1}).mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'mul_' writes in place to a possible alias of local 'frame' ('reshape' returns a view when the layout allows); whether 'frame' changes depends on its layout at run time
  consume(original);
}

// Positive: read afterwards on another path than the rebinding.
void PositiveReadBeforeRebind(const torch::Tensor &input, bool again) {
  auto frame = input.sigmoid();
  auto flat = frame.reshape({-1});
  // CHECK-FIXES: auto flat = frame.reshape({-1}).clone();
  flat.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'flat', a possible alias of local 'frame'
  if (again)
    frame = torch::zeros({4, 4});
  consume(frame);
}
