// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

// A parameter the function is meant to write (Note [Output parameters]):
// written directly, returned, registered as an operator, or handed a tensor
// its callers just made. `const Tensor &` says nothing either way.

#include <torch/extension.h>
#include <torch/library.h>

#include <functional>
#include <vector>

using torch::indexing::Slice;

void consume(const torch::Tensor &t);

// Negative: a kernel fills the output it is handed, element by element and
// through views no variable holds.

void NegativeFillsScores(const torch::Tensor boxes, torch::Tensor scores) {
  for (int64_t i = 0; i < boxes.size(0); ++i) {
    auto area = boxes[i].sum();
    scores[i] = area;
    auto row = scores.narrow(0, i, 1);
    row.mul_(0.5);
    consume(row);
  }
}

void NegativeFlatView(const torch::Tensor &src, const torch::Tensor &dest,
                      int64_t n) {
  for (int64_t k = 0; k < n; ++k)
    dest.view({-1})[k] = src.view({-1})[k];
}

void NegativeGroups(torch::Tensor input, torch::Tensor grad_weight, int64_t g) {
  for (int64_t i = 0; i < g; ++i)
    grad_weight.select(0, i).addmm_(input[i], input[i].t());
}

void NegativeColumns(const torch::Tensor &grid, const torch::Tensor &grad,
                     int64_t w) {
  grad.index({Slice(), 0}).copy_(grid.select(1, 0));
  auto last = grad.index({Slice(), w - 1});
  last.fill_(0);
  consume(last);
}

// Negative: the parameter variable rebound to a view of itself on some
// paths only; the element write lands in the parameter either way.
void NegativeRebindOnSomePaths(torch::Tensor grad_bias,
                               const torch::Tensor &g_out, int64_t group,
                               bool with_bias) {
  for (int64_t b = 0; b < g_out.size(0); ++b) {
    if (with_bias)
      grad_bias = grad_bias.view({group, -1});
    for (int64_t g = 0; g < group; ++g)
      if (with_bias)
        grad_bias[g] = grad_bias[g]
                           .view({-1, 1})
                           .addmm_(g_out[b][g], g_out[b][g].t())
                           .view(-1);
    if (with_bias)
      grad_bias = grad_bias.view({-1});
  }
}

std::vector<torch::Tensor> NegativeCornersInPlace(torch::Tensor boxes,
                                                  double threshold) {
  boxes.select(-1, 0) -= boxes.select(-1, 2) / 2;
  boxes.select(-1, 1) -= boxes.select(-1, 3) / 2;
  auto keep = boxes.select(-1, 4) > threshold;
  return {keep};
}

// Negative: in-out parameters, returned alone or in a list.

torch::Tensor NegativeReturnedMask(torch::Tensor mask, const torch::Tensor &hits) {
  auto first = mask.select(0, 0);
  first.mul_(hits);
  consume(first);
  return mask;
}

std::vector<torch::Tensor> NegativeReturnedInList(torch::Tensor noobj,
                                                  torch::Tensor boxes) {
  auto row = noobj.narrow(0, 0, 1);
  row.zero_();
  consume(row);
  return {noobj, boxes};
}

// Negative: every call passes a tensor the caller has just made.

static void accumulateHead(torch::Tensor acc, const torch::Tensor &x) {
  auto head = acc.narrow(0, 0, 1);
  head.add_(x);
  consume(head);
}

torch::Tensor CallsWithFreshTensors(const torch::Tensor &x) {
  auto acc = torch::zeros({4});
  accumulateHead(acc, x);
  accumulateHead(torch::zeros({4}), x);
  return acc;
}

// Negative: operators registered with TORCH_LIBRARY and pybind11.

void roiKernel(const at::Tensor &features, const at::Tensor &out) {
  auto first = out.narrow(0, 0, 1);
  first.copy_(features.narrow(0, 0, 1));
  consume(first);
}

void scatterKernel(const at::Tensor &src, at::Tensor dst) {
  auto head = dst.select(0, 0);
  head.add_(src);
  consume(head);
}

TORCH_LIBRARY(demo, m) {
  m.def("roi(Tensor features, Tensor out) -> ()", roiKernel);
}

TORCH_LIBRARY_IMPL(demo, CPU, m) {
  m.impl("scatter", TORCH_FN(scatterKernel));
}

void fillRows(const torch::Tensor &rows, const torch::Tensor &values) {
  auto top = rows.narrow(0, 0, 2);
  top.copy_(values);
  consume(top);
}

PYBIND11_MODULE(demo_ext, m) {
  m.def("fill_rows", &fillRows, "fills the first two rows");
  m.def("clear_head", [](torch::Tensor t) {
    auto head = t.narrow(0, 0, 1);
    head.zero_();
    consume(head);
  });
}

// Positive: the function clones its input and keeps reading the original,
// so it treats it as read-only; a write through a view of it is a bug even
// though the function also writes it directly.
torch::Tensor PositiveClonedInput(const torch::Tensor &image) {
  auto work = image.clone();
  work.mul_(2);
  image.select(0, 0).zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'zero_' writes in place to a view of parameter 'image'; the caller's tensor changes too
  return work + image.mean();
}

// Positive: a registered operator that treats its input as read-only.
void PositiveRegisteredReadOnly(const at::Tensor &input, const at::Tensor &out) {
  auto copy = input.clone();
  auto head = input.narrow(0, 0, 1);
  // CHECK-FIXES: auto head = input.narrow(0, 0, 1).clone();
  head.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'head', a view of parameter 'input'
  out.copy_(copy + input);
}

TORCH_LIBRARY(checked, m) { m.def("f", PositiveRegisteredReadOnly); }

// Positive: a caller passes a tensor it was handed, so not every call
// passes a fresh one.
static float PositiveScaledHead(torch::Tensor t) {
  auto head = t.narrow(0, 0, 1);
  // CHECK-FIXES: auto head = t.narrow(0, 0, 1).clone();
  head.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'head', a view of parameter 't'
  return head.sum().item<float>();
}

float CallsWithItsInput(const torch::Tensor &batch) {
  auto fresh = torch::ones({2});
  return PositiveScaledHead(fresh) + PositiveScaledHead(batch);
}

// Positive: the function's address is taken, so its callers are unknown.
static void PositiveAddressTaken(torch::Tensor t) {
  auto head = t.narrow(0, 0, 1);
  // CHECK-FIXES: {{^}}  auto head = t.narrow(0, 0, 1).clone();{{$}}
  head.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'zero_' writes in place to 'head', a view of parameter 't'
  consume(head);
}

void TakesAddress(std::vector<std::function<void(torch::Tensor)>> &hooks) {
  PositiveAddressTaken(torch::zeros({2}));
  hooks.push_back(PositiveAddressTaken);
}

// Positive: the view is returned, not the parameter.
torch::Tensor PositiveReturnsView(torch::Tensor x) {
  auto head = x.narrow(0, 0, 1);
  // CHECK-FIXES: auto head = x.narrow(0, 0, 1).clone();
  head.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'head', a view of parameter 'x'
  return head;
}

// Positive: a named view of the parameter on every path, written and read.
float PositiveNamedViewOnSomePaths(torch::Tensor x, bool first) {
  auto part = x.narrow(0, 0, 1);
  if (!first)
    part = x.narrow(0, 1, 1);
  part.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'part', a view of parameter 'x'
  return part.sum().item<float>();
}

// Positive: an element of a list of views is held by the list.
float PositiveChunkOfParameter(const torch::Tensor &x) {
  auto parts = x.chunk(2);
  parts[0].add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'add_' writes in place to a view of parameter 'x'
  return parts[0].sum().item<float>();
}
