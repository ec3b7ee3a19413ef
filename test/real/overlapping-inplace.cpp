// Ground truth: the same behaviours against Debian's real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-overlapping-inplace %t -- -- %real_torch

#include <torch/torch.h>

using torch::indexing::None;
using torch::indexing::Slice;

void PositiveSelfReferencing(torch::Tensor a, torch::Tensor c) {
  a.sub_(a.slice(1, 0, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'a.slice(1, 0, 1)' of 'sub_' is a view of its destination 'a'; PyTorch throws 'unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location' when it can see the overlap and silently computes a wrong result when it cannot [libtorch-overlapping-inplace]
  // CHECK-FIXES: a.sub_(a.slice(1, 0, 1).clone());
  c.div_(c.index({Slice(), Slice(100, None)}));
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'c.index({Slice(), Slice(100, None)})' of 'div_' is a view of its destination 'c'
  // CHECK-FIXES: c.div_(c.index({Slice(), Slice(100, None)}).clone());
}

void PositiveShiftCopy(torch::Tensor buf, int64_t n) {
  buf.slice(1, 1).copy_(buf.slice(1, 0, n - 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: source 'buf.slice(1, 0, n - 1)' of 'copy_' overlaps (a shifted slice along dimension 1 of) its destination 'buf.slice(1, 1)'
  // CHECK-FIXES: buf.slice(1, 1).copy_(buf.slice(1, 0, n - 1).clone());
  buf.index_put_({Slice(), Slice(1, None)}, buf.index({Slice(), Slice(None, -1)}));
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: source 'buf.index({Slice(), Slice(None, -1)})' of 'index_put_' overlaps (a shifted slice along dimension 1 of) its destination 'buf' at '{Slice(), Slice(1, None)}'; PyTorch throws 'unsupported operation: some elements
  // CHECK-FIXES: buf.index_put_({Slice(), Slice(1, None)}, buf.index({Slice(), Slice(None, -1)}).clone());
}

void PositiveOutAliasing(torch::Tensor x, const torch::Tensor &y) {
  at::cat_out(x, {x, y});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'x' of 'cat_out' is the same tensor as its out= argument 'x'
  // CHECK-FIXES: at::cat_out(x, {x.clone(), y});
  at::add_out(x, x.narrow(0, 0, 1), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'x.narrow(0, 0, 1)' of 'add_out' is a view of its out= argument 'x'
  // CHECK-FIXES: at::add_out(x, x.narrow(0, 0, 1).clone(), y);
  at::matmul_out(x, x.narrow(0, 0, 3), y);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'x.narrow(0, 0, 3)' of 'matmul_out' is a view of its out= argument 'x'; aten::matmul does not reject this and computes a wrong result: it reads elements it has already written [libtorch-overlapping-inplace]
  // CHECK-FIXES: at::matmul_out(x, x.narrow(0, 0, 3).clone(), y);
}

// Measured (checks/data/aten-overlap.json): index_put_ rejects `values`
// being `self`; add.out accepts `self` being `out`.
void PositiveValuesAreSelf(torch::Tensor x, const torch::Tensor &i) {
  x.index_put_({i}, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'x' of 'index_put_' is the same tensor as its destination 'x'; aten::index_put_ throws 'unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location' even for the same tensor [libtorch-overlapping-inplace]
  // CHECK-FIXES: x.index_put_({i}, x.clone());
}

void NegativeExactAliasAccepted(torch::Tensor x, const torch::Tensor &y) {
  at::add_out(x, x, y);
  x.mul_(x);
}

// A frame shift through basic indices writes slot k only.
void NegativeFrameShiftIndexPut(torch::Tensor frames, int64_t n) {
  for (int64_t k = n - 1; k > 0; --k)
    frames.index_put_({Slice(), k}, frames.index({Slice(), k - 1}));
  frames.index_put_({Slice(0, 2)}, frames.index({Slice(2, 4)}));
}

void PositiveIndexAndMask(torch::Tensor idx, const torch::Tensor &v,
                          torch::Tensor flags) {
  idx.index_put_({idx}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: index 'idx' of 'index_put_' is the same tensor as its destination 'idx'; aten::index_put_ throws
  // CHECK-FIXES: idx.index_put_({idx.clone()}, v);
  auto first = flags.select(1, 0);
  flags.masked_fill_(first, false);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: mask 'first' of 'masked_fill_' is a view of its destination 'flags'
  // CHECK-FIXES: flags.masked_fill_(first.clone(), false);
}

void PositiveTwoRoles(torch::Tensor scale, torch::Tensor tracker) {
  at::_amp_update_scale_(scale, tracker, tracker, 2.0, 0.5, 2000);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: operand 'tracker' of '_amp_update_scale_' is the same tensor as the argument 'growth_tracker' it also writes 'tracker'; no run-time check covers this
  // CHECK-FIXES: at::_amp_update_scale_(scale, tracker, tracker.clone(), 2.0, 0.5, 2000);
}

void NegativeDisjoint(torch::Tensor x, torch::Tensor rows, int64_t n) {
  x.narrow(0, 0, n).add_(x.narrow(0, n, n));
  rows[0].copy_(rows[-1]);
  auto parts = x.chunk(2);
  parts[0].add_(parts[1]);
}

void NegativeAccumulateCloneFreshMask(torch::Tensor t, const torch::Tensor &bins,
                                      const torch::Tensor &ones) {
  t.index_put_({bins}, ones, /*accumulate=*/true);
  t.sub_(t.slice(1, 0, 1).clone());
  t.masked_fill_(t > 0, 0);
  t.add_(t);
}

void NegativeFrameByFrame(torch::Tensor frames, int64_t T) {
  for (int64_t t = 0; t + 1 < T; ++t)
    frames.select(0, t).copy_(frames.select(0, t + 1));
}

// Index arithmetic: positions counted from the end, bounds relative to the
// end of a dimension.
void NegativeCornersFromCenters(torch::Tensor boxes) {
  boxes.select(-1, 2) += boxes.select(-1, 0);
  boxes.select(-1, 3) += boxes.select(-1, 1);
  boxes.index({"...", 0}).sub_(boxes.index({"...", 2}));
}

void PositiveFrameStackShift(torch::Tensor x, int64_t k) {
  x.index_put_({Slice(), Slice(None, -k)}, x.index({Slice(), Slice(k, None)}));
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: source 'x.index({Slice(), Slice(k, None)})' of 'index_put_' overlaps (a shifted slice along dimension 1 of) its destination 'x' at '{Slice(), Slice(None, -k)}'
  // CHECK-FIXES: x.index_put_({Slice(), Slice(None, -k)}, x.index({Slice(), Slice(k, None)}).clone());
}

void PositiveMatrixProductIntoInput(torch::Tensor a, const torch::Tensor &b) {
  at::mm_out(a, a, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'a' of 'mm_out' is the same tensor as its out= argument 'a'; aten::mm does not reject this and computes a wrong result
  // CHECK-FIXES: at::mm_out(a, a.clone(), b);
}

void NegativeBiasIntoItself(torch::Tensor bias, const torch::Tensor &m1,
                            const torch::Tensor &m2) {
  at::addmm_out(bias, bias, m1, m2);
}

// An optional tensor's `*` is the tensor it holds (Note [Optional tensors]).
struct RealPowerIteration {
  c10::optional<torch::Tensor> rank_;
  torch::Tensor m_;
  void PositiveOptionalStateIntoItself() {
    torch::Tensor &rank = *rank_;
    at::mv_out(rank, m_, *rank_);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: input '*rank_' of 'mv_out' is the same tensor as its out= argument 'rank'
    // CHECK-FIXES: at::mv_out(rank, m_, (*rank_).clone());
  }
};

// matrix_power_out into its input: right for n = 1 only (Note [Counts other
// than one]).
void PositiveMatrixPowerIntoItself(torch::Tensor s, int64_t hops) {
  torch::matrix_power_out(s, s, hops);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 's' of 'matrix_power_out' is the same tensor as its out= argument 's'; aten::matrix_power does not reject this and computes a wrong result
  // CHECK-FIXES: torch::matrix_power_out(s, s.clone(), hops);
}

void NegativeMatrixPowerIntoABuffer(const torch::Tensor &s, torch::Tensor power) {
  torch::matrix_power_out(power, s, 3);
}
