// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

#include <torch/torch.h>

using torch::indexing::Slice;

// Positive: the base is caller-owned.

void PositiveConstRefParameter(const torch::Tensor &input) {
  auto head = input.narrow(0, 0, 1);
  // CHECK-FIXES: auto head = input.narrow(0, 0, 1).clone();
  head.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'zero_' writes in place to 'head', a view of parameter 'input'; the caller's tensor changes too [libtorch-inplace-on-view]
}

void PositiveByValueParameter(torch::Tensor x) {
  torch::Tensor row = x.select(0, 1);
  // CHECK-FIXES: torch::Tensor row = x.select(0, 1).clone();
  row.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'mul_' writes in place to 'row', a view of parameter 'x'; the caller's tensor changes too
}

// The chain's result is used, so the author may take it for a new tensor.
torch::Tensor PositiveChainedViews(torch::Tensor x) {
  return x.t().narrow(0, 0, 1).add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'add_' writes in place to a view of parameter 'x'; the caller's tensor changes too
}

void PositiveViewOfView(const torch::Tensor &x) {
  auto a = x.slice(1, 0, 2);
  auto b = a.transpose(0, 1);
  // CHECK-FIXES: auto b = a.transpose(0, 1).clone();
  b.sub_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sub_' writes in place to 'b', a view of parameter 'x'
}

void PositiveCopyOfHandle(const torch::Tensor &x) {
  torch::Tensor alias = x;
  auto v = alias.view({-1});
  // CHECK-FIXES: auto v = alias.view({-1}).clone();
  v.fill_(0);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'fill_' writes in place to 'v', a view of parameter 'x'
}

void PositiveChainReportedOnce(const torch::Tensor &x) {
  auto v = x.select(0, 0);
  // CHECK-FIXES: auto v = x.select(0, 0).clone();
  v.mul_(-1).add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'mul_' writes in place to 'v', a view of parameter 'x'
}

void PositiveCompoundAssignment(const torch::Tensor &x) {
  auto v = x.diagonal();
  // CHECK-FIXES: auto v = x.diagonal().clone();
  v += 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'operator+=' writes in place to 'v', a view of parameter 'x'
}

float PositiveIndexAssignment(torch::Tensor x) {
  auto rows = x.narrow(0, 0, 2);
  rows.index({Slice(), 0}) = 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'operator=' writes in place to a view of parameter 'x'; the caller's tensor changes too
  rows[0] = 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'operator=' writes in place to a view of parameter 'x'
  return rows.sum().item<float>();
}

void PositiveOutArgument(const torch::Tensor &x, const torch::Tensor &y) {
  auto top = x.narrow(0, 0, 1);
  // CHECK-FIXES: auto top = x.narrow(0, 0, 1).clone();
  at::add_out(top, y, y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'add_out' writes in place to 'top', a view of parameter 'x'
  auto row = x.select(0, 0);
  // CHECK-FIXES: auto row = x.select(0, 0).clone();
  at::mul_outf(y, y, row);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'mul_outf' writes in place to 'row', a view of parameter 'x'
}

torch::Tensor PositiveIndexPut(const torch::Tensor &x, const torch::Tensor &v) {
  auto head = x.narrow(0, 0, 2);
  // CHECK-FIXES: auto head = x.narrow(0, 0, 2).clone();
  head.index_put_({0}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'index_put_' writes in place to 'head', a view of parameter 'x'
  return head;
}

void PositiveFreeFunctionView(const torch::Tensor &x) {
  auto v = at::narrow(x, 0, 0, 1);
  // CHECK-FIXES: auto v = at::narrow(x, 0, 0, 1).clone();
  v.relu_();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'relu_' writes in place to 'v', a view of parameter 'x'
}

void PositiveChunks(const torch::Tensor &x) {
  auto parts = x.chunk(2);
  parts[0].add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'add_' writes in place to a view of parameter 'x'
  for (auto &part : x.split(2))
    part.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'zero_' writes in place to 'part', a view of parameter 'x'
}

struct Scaler {
  void operator()(torch::Tensor t) const { t.mul_(2); }
};

void PositiveThroughFunctor(const torch::Tensor &x) {
  Scaler scale;
  auto v = x.narrow(0, 0, 1);
  // CHECK-FIXES: auto v = x.narrow(0, 0, 1).clone();
  scale(v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'operator()' writes in place to 'v', a view of parameter 'x'
}

// Object state: a method writing a view of its own member updates the
// object's state (see object-state.cpp for the whole rule).

struct Buffer {
  torch::Tensor storage_;
  void NegativeMemberView() {
    auto first = storage_.select(0, 0);
    first.zero_();
  }
};

// Positive: a registered parameter, written where autograd records it.
void PositiveModuleParameter(torch::nn::Linear &lin) {
  lin->weight.narrow(0, 0, 1).mul_(0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'mul_' writes in place to a view of member 'weight'; the object's state changes too, and autograd records the write: PyTorch throws 'a view of a leaf Variable that requires grad is being used in an in-place operation' outside a no-grad scope
}

// Positive: expanded targets, whatever the base.

void PositiveExpanded() {
  auto bias = torch::zeros({3});
  auto grid = bias.expand({4, 3});
  // CHECK-FIXES: auto grid = bias.expand({4, 3}).clone();
  grid.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'add_' writes in place to 'grid', an expanded view of local 'bias', whose elements share memory; PyTorch throws 'unsupported operation: more than one element of the written-to tensor refers to a single memory location'
}

void PositiveExpandedMaskedFill(const torch::Tensor &x, const torch::Tensor &mask) {
  auto wide = x.expand_as(mask);
  // CHECK-FIXES: auto wide = x.expand_as(mask).clone();
  wide.masked_fill_(mask, 0);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'masked_fill_' writes in place to 'wide', an expanded view of parameter 'x', whose elements share memory; PyTorch only warns and the result is silently wrong
}

// Positive: may-alias results whose input is observable.

void PositiveMayAliasParameter(const torch::Tensor &x) {
  auto flat = x.reshape({-1});
  // CHECK-FIXES: auto flat = x.reshape({-1}).clone();
  flat.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'flat', a possible alias of parameter 'x' ('reshape' returns a view when the layout allows); whether 'x' changes depends on its layout at run time
}

float PositiveMayAliasLocalReadAfter(const torch::Tensor &input) {
  auto x = input.sigmoid();
  auto c = x.contiguous();
  // CHECK-FIXES: auto c = x.contiguous().clone();
  c.clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'clamp_' writes in place to 'c', a possible alias of local 'x' ('contiguous' returns a view when the layout allows); whether 'x' changes depends on its layout at run time
  return x.sum().item<float>();
}

// Negative: legitimate write-through.

torch::Tensor NegativeFillLocalBuffer(const torch::Tensor &rows, int n) {
  auto out = torch::empty({n, 3});
  for (int i = 0; i < n; ++i)
    out.narrow(0, i, 1).copy_(rows.select(0, i));
  return out;
}

void NegativeInPlaceOnClone(const torch::Tensor &x) {
  auto mine = x.clone();
  mine.narrow(0, 0, 1).zero_();
  auto head = x.narrow(0, 0, 1).clone();
  head.zero_();
}

torch::Tensor NegativeExpandedReadOnly(const torch::Tensor &x, const torch::Tensor &y) {
  auto e = x.expand({4, 3});
  return y.add(e);
}

torch::Tensor NegativeFreshTemporaryChain(const torch::Tensor &t) {
  return t.add(1).div_(2);
}

void NegativeNonConstRefOutput(torch::Tensor &dest, const torch::Tensor &x) {
  dest.narrow(0, 0, 1).copy_(x);
}

void NegativeNamedOutput(const torch::Tensor &out, const torch::Tensor &x) {
  out.select(0, 0).copy_(x);
  auto rows = out.narrow(0, 0, 2);
  rows.fill_(1);
}

void negative_inplace_convention_(const torch::Tensor &self) {
  self.narrow(0, 0, 1).zero_();
}

void negative_kernel_out(const torch::Tensor &x, const torch::Tensor &y) {
  y.narrow(0, 0, 1).copy_(x);
}

float NegativeMayAliasLocalNotReadAfter() {
  auto x = torch::rand({4, 4});
  auto flat = x.reshape({-1});
  flat.mul_(2);
  return flat.sum().item<float>();
}

void NegativeAdvancedIndexCopies(torch::Tensor x) {
  x.index({x > 0}).zero_();
}

void NegativeDirectWriteIsNotAView(const torch::Tensor &x) {
  x.add_(1);
}

void NegativeMetadataOnly(const torch::Tensor &x) {
  auto v = x.narrow(0, 0, 1);
  v.unsqueeze_(0);
  v.requires_grad_();
}

void NegativeReassignedToFresh(const torch::Tensor &x) {
  auto v = x.narrow(0, 0, 1);
  v = torch::zeros({1});
  v.add_(1);
}
