// Ground truth: the same behaviours against Debian's real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %real_torch

#include <torch/torch.h>

using torch::indexing::Slice;

void PositiveParameterView(const torch::Tensor &input) {
  auto head = input.narrow(0, 0, 1);
  // CHECK-FIXES: auto head = input.narrow(0, 0, 1).clone();
  head.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'zero_' writes in place to 'head', a view of parameter 'input'; the caller's tensor changes too [libtorch-inplace-on-view]
}

void PositiveIndexAssignment(torch::Tensor x) {
  x.index({Slice(), 0}) = 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'operator=' writes in place to a view of parameter 'x'
  x[0] = 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'operator=' writes in place to a view of parameter 'x'
}

void PositiveOutArgument(const torch::Tensor &x, const torch::Tensor &y) {
  auto top = x.narrow(0, 0, 1);
  // CHECK-FIXES: auto top = x.narrow(0, 0, 1).clone();
  at::add_out(top, y, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'add_out' writes in place to 'top', a view of parameter 'x'
  torch::mul_out(top, y, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'mul_out' writes in place to 'top', a view of parameter 'x'
}

struct Net : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale;
  void PositiveModuleState() {
    fc->weight.narrow(0, 0, 1).mul_(0.5);
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'mul_' writes in place to a view of member 'weight'; the object's state changes too
    auto s = scale.select(0, 0);
    // CHECK-FIXES: auto s = scale.select(0, 0).clone();
    s.fill_(1);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'fill_' writes in place to 's', a view of member 'scale'; the object's state changes too
  }
};

void PositiveExpanded(const torch::Tensor &x, const torch::Tensor &mask) {
  auto grid = torch::zeros({3}).expand({4, 3});
  // CHECK-FIXES: auto grid = torch::zeros({3}).expand({4, 3}).clone();
  grid.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'add_' writes in place to 'grid', an expanded view of a temporary, whose elements share memory; PyTorch throws
  auto wide = x.expand_as(mask);
  // CHECK-FIXES: auto wide = x.expand_as(mask).clone();
  wide.index_put_({mask}, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'index_put_' writes in place to 'wide', an expanded view of parameter 'x', whose elements share memory; PyTorch only warns and the result is silently wrong
}

void PositiveMayAlias(const torch::Tensor &x) {
  auto flat = x.reshape({-1});
  // CHECK-FIXES: auto flat = x.reshape({-1}).clone();
  flat.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'flat', a possible alias of parameter 'x' ('reshape' returns a view when the layout allows); whether 'x' changes depends on its layout at run time
  auto c = x.contiguous();
  // CHECK-FIXES: auto c = x.contiguous().clone();
  c.clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'clamp_' writes in place to 'c', a possible alias of parameter 'x'
}

torch::Tensor NegativeFillOwnBuffer(const torch::Tensor &rows, int64_t n) {
  auto out = torch::empty({n, 3});
  for (int64_t i = 0; i < n; ++i)
    out.narrow(0, i, 1).copy_(rows.select(0, i));
  out.index({Slice(), 0}) = 0;
  return out;
}

void NegativeClone(const torch::Tensor &x) {
  auto head = x.narrow(0, 0, 1).clone();
  head.zero_();
}

torch::Tensor NegativeExpandedReadOnly(const torch::Tensor &x, const torch::Tensor &y) {
  return y.add(x.expand({4, 3}));
}

torch::Tensor NegativeFreshChain(const torch::Tensor &t) { return t.add(1).div_(2); }

void NegativeOutputParameters(torch::Tensor &dst, const torch::Tensor &out,
                              const torch::Tensor &x) {
  dst.narrow(0, 0, 1).copy_(x);
  out.select(0, 0).copy_(x);
}

void negative_kernel_(const torch::Tensor &self) { self.narrow(0, 0, 1).zero_(); }
