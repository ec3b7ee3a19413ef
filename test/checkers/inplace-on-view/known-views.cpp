// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

// Known views are views (Note [Layout facts], Note [Contiguity of views]): a
// tensor fresh from a factory is contiguous, and so is a view along its
// first dimension or one that only reshapes it, so `reshape`, `flatten` and
// `contiguous()` of it do not copy. A may-alias write stays a finding only
// where the function cannot tell, and where the answer matters (Note
// [Results copied back], Note [A view that replaces its base]).

#include <torch/torch.h>

void consume(const torch::Tensor &t);

// Negative: views of a buffer the function just made.

torch::Tensor NegativeFlattenOfFreshRows(const torch::Tensor &w,
                                         const torch::Tensor &cols, int64_t g) {
  auto out = torch::zeros({g, 4, 4});
  for (int64_t i = 0; i < g; ++i) {
    auto flat = out[i].flatten();
    flat.addmm_(w, cols);
    consume(flat);
  }
  return out;
}

torch::Tensor NegativeReshapeOfFreshView(const torch::Tensor &x) {
  auto buf = torch::empty({2, 3, 4});
  auto grouped = buf.view({2, 12}).narrow(0, 0, 1).reshape({12});
  grouped.copy_(x);
  return buf;
}

float NegativeContiguousOfFresh() {
  auto x = torch::ones({4, 4});
  auto c = x.contiguous();
  c.mul_(2);
  return x.sum().item<float>();
}

torch::Tensor NegativeNewZerosThenFlatten(const torch::Tensor &like) {
  auto out = like.new_zeros({3, 4});
  out.flatten().add_(1);
  return out;
}

// Negative: zeros_like keeps the permuted strides of its input, so
// contiguous() copies.
float NegativeContiguousOfLikeTransposed(const torch::Tensor &grad) {
  auto like = torch::zeros_like(grad.t());
  auto c = like.contiguous();
  c.fill_(1);
  return like.sum().item<float>();
}

// Negative: a local rebound to a view of itself holds its own tensor.

torch::Tensor NegativeReboundToContiguous(const torch::Tensor &grad) {
  auto buffer = torch::zeros_like(grad);
  buffer = buffer.view({2, -1});
  buffer = buffer.contiguous();
  buffer.copy_(grad.view({2, -1}));
  buffer = buffer.view({-1});
  return buffer;
}

// Negative: the rebound local is a view on one path and the tensor itself
// on the other; either way the write lands in the local buffer.
void NegativeLoopOverFreshColumns(const torch::Tensor &w, int64_t groups) {
  auto columns = torch::zeros({6, 8});
  for (int64_t b = 0; b < 2; ++b) {
    columns = columns.view({groups, 6 / groups, 8});
    for (int64_t g = 0; g < groups; ++g)
      columns[g] = columns[g].addmm_(w, w);
    columns = columns.view({6, 8});
    consume(columns);
  }
}

// Negative: the result is copied back where the may-alias operation took it
// from, whether it made a view or a copy.
void NegativeCopiedBack(torch::Tensor grad_weight, const torch::Tensor &a,
                        const torch::Tensor &b, int64_t groups) {
  for (int64_t g = 0; g < groups; ++g)
    grad_weight[g] =
        grad_weight[g].flatten(1).addmm_(a, b).view_as(grad_weight[g]);
}

void NegativeCopiedBackWithCopy(const torch::Tensor &input,
                                const torch::Tensor &a, int64_t n) {
  auto buf = input.sigmoid();
  for (int64_t i = 0; i < n; ++i)
    buf[i].copy_(buf[i].reshape({-1}).mul_(a).view_as(buf[i]));
  consume(buf);
}

// Positive: the layout is unknown or known not to allow a view, and the
// input is read again.

float PositiveFlattenOfTransposed() {
  auto base = torch::rand({3, 4});
  auto x = base.t();
  auto flat = x.flatten();
  // CHECK-FIXES: auto flat = x.flatten().clone();
  flat.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'mul_' writes in place to 'flat', a possible alias of local 'base' ('flatten' returns a view when the layout allows); whether 'base' changes depends on its layout at run time
  return base.sum().item<float>();
}

float PositiveReshapeOfColumn() {
  auto x = torch::rand({3, 4});
  auto column = x.select(1, 0).reshape({3, 1});
  // CHECK-FIXES: auto column = x.select(1, 0).reshape({3, 1}).clone();
  column.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'zero_' writes in place to 'column', a possible alias of local 'x' ('reshape' returns a view when the layout allows)
  return x.sum().item<float>();
}

float PositiveContiguousOfLike(const torch::Tensor &grad) {
  // zeros_like keeps the strides of its input, which are unknown here.
  auto like = torch::zeros_like(grad);
  auto c = like.contiguous();
  // CHECK-FIXES: auto c = like.contiguous().clone();
  c.fill_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'fill_' writes in place to 'c', a possible alias of local 'like'
  return like.sum().item<float>();
}

// Positive: copied back into another place than it came from.
void PositiveCopiedElsewhere(torch::Tensor grad_weight, const torch::Tensor &a,
                             int64_t groups) {
  for (int64_t g = 1; g < groups; ++g)
    grad_weight[g] =
        grad_weight[g - 1].flatten(1).addmm_(a, a).view_as(grad_weight[g]);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'addmm_' writes in place to a possible alias of parameter 'grad_weight' ('flatten' returns a view when the layout allows)
}

// Positive: another variable still holds the tensor before the rebinding.
float PositiveReboundWhileHeld(const torch::Tensor &input) {
  auto frame = input.sigmoid();
  auto keep = frame.narrow(0, 0, 1);
  frame = frame.contiguous();
  frame.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'zero_' writes in place to 'frame', a possible alias of local 'frame' ('contiguous' returns a view when the layout allows)
  return keep.sum().item<float>();
}
