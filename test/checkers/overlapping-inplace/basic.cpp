// RUN: %check_clang_tidy %s libtorch-overlapping-inplace %t -- -- %mock_torch

#include <torch/torch.h>

using torch::indexing::None;
using torch::indexing::Slice;

// Positive: the operand is a view of the destination.

void PositiveSelfReferencingInline(torch::Tensor a) {
  a.sub_(a.slice(1, 0, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'a.slice(1, 0, 1)' of 'sub_' is a view of its destination 'a'; PyTorch throws 'unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location' when it can see the overlap and silently computes a wrong result when it cannot [libtorch-overlapping-inplace]
  // CHECK-FIXES: a.sub_(a.slice(1, 0, 1).clone());
}

void PositiveSelfReferencingIndex(torch::Tensor c) {
  c.div_(c.index({Slice(), Slice(100, None)}));
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'c.index({Slice(), Slice(100, None)})' of 'div_' is a view of its destination 'c'
  // CHECK-FIXES: c.div_(c.index({Slice(), Slice(100, None)}).clone());
}

void PositiveSelfReferencingNamed(const torch::Tensor &a) {
  auto b = a.select(0, 0);
  a.mul_(b);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'b' of 'mul_' is a view of its destination 'a'
  // CHECK-FIXES: a.mul_(b.clone());
}

void PositiveTransposedOperand(torch::Tensor w) {
  w.add_(w.t());
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'w.t()' of 'add_' is a view of its destination 'w'
  // CHECK-FIXES: w.add_(w.t().clone());
}

void PositiveCompoundAssignment(torch::Tensor x) {
  x += x.narrow(0, 0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'x.narrow(0, 0, 1)' of 'operator+=' is a view of its destination 'x'
  // CHECK-FIXES: x += x.narrow(0, 0, 1).clone();
}

void PositiveOverlappingNarrows(torch::Tensor x) {
  x.narrow(0, 0, 4).add_(x.narrow(0, 2, 4));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: operand 'x.narrow(0, 2, 4)' of 'add_' overlaps its destination 'x.narrow(0, 0, 4)'
  // CHECK-FIXES: x.narrow(0, 0, 4).add_(x.narrow(0, 2, 4).clone());
}

// Positive: shift copies, in both directions, and the index_put_ form.

void PositiveShiftCopyRight(torch::Tensor buf, int64_t n) {
  buf.slice(1, 1).copy_(buf.slice(1, 0, n - 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: source 'buf.slice(1, 0, n - 1)' of 'copy_' overlaps (a shifted slice along dimension 1 of) its destination 'buf.slice(1, 1)'
  // CHECK-FIXES: buf.slice(1, 1).copy_(buf.slice(1, 0, n - 1).clone());
}

void PositiveShiftCopyLeft(torch::Tensor buf) {
  buf.slice(1, 0, -1).copy_(buf.slice(1, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: source 'buf.slice(1, 1)' of 'copy_' overlaps (a shifted slice along dimension 1 of) its destination 'buf.slice(1, 0, -1)'
  // CHECK-FIXES: buf.slice(1, 0, -1).copy_(buf.slice(1, 1).clone());
}

void PositiveShiftCopyNamed(torch::Tensor history, int64_t len) {
  auto older = history.narrow(0, 0, len);
  auto newer = history.narrow(0, 1, len);
  newer.copy_(older);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: source 'older' of 'copy_' overlaps (a shifted slice along dimension 0 of) its destination 'newer'
  // CHECK-FIXES: newer.copy_(older.clone());
}

// With basic indices, index_put_ copies into `buf.index(indices)` (Note
// [Indexing writes]): the operand is compared with that region.
void PositiveShiftIndexPut(torch::Tensor buf) {
  buf.index_put_({Slice(), Slice(1, None)}, buf.index({Slice(), Slice(None, -1)}));
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: source 'buf.index({Slice(), Slice(None, -1)})' of 'index_put_' overlaps (a shifted slice along dimension 1 of) its destination 'buf' at '{Slice(), Slice(1, None)}'; PyTorch throws 'unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location' when it can see the overlap and silently computes a wrong result when it cannot [libtorch-overlapping-inplace]
  // CHECK-FIXES: buf.index_put_({Slice(), Slice(1, None)}, buf.index({Slice(), Slice(None, -1)}).clone());
}

// Positive: an out= argument that is also an input.

void PositiveCatOut(torch::Tensor x, const torch::Tensor &y) {
  at::cat_out(x, {x, y});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'x' of 'cat_out' is the same tensor as its out= argument 'x'
  // CHECK-FIXES: at::cat_out(x, {x.clone(), y});
}

void PositiveOverlappingIndexPutWindows(torch::Tensor frames) {
  frames.index_put_({Slice(), Slice(1, 3)}, frames.index({Slice(), Slice(2, 4)}));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: source 'frames.index({Slice(), Slice(2, 4)})' of 'index_put_' overlaps its destination 'frames' at '{Slice(), Slice(1, 3)}'; PyTorch throws
  // CHECK-FIXES: frames.index_put_({Slice(), Slice(1, 3)}, frames.index({Slice(), Slice(2, 4)}).clone());
  frames.index({Slice(), Slice(1, None)}) = frames.index({Slice(), Slice(None, -1)});
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: operand 'frames.index({Slice(), Slice(None, -1)})' of 'operator=' overlaps (a shifted slice along dimension 1 of) its destination 'frames.index({Slice(), Slice(1, None)})'
}

// aten-overlap.json: add.out accepts `self` being `out` and rejects a
// partial overlap.
void PositiveAddOutPartialOverlap(torch::Tensor x, const torch::Tensor &other) {
  at::add_out(x, x.narrow(0, 0, 1), other);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'x.narrow(0, 0, 1)' of 'add_out' is a view of its out= argument 'x'; PyTorch throws 'unsupported operation: some elements
  // CHECK-FIXES: at::add_out(x, x.narrow(0, 0, 1).clone(), other);
}

// aten-overlap.json: matmul.out runs with a partial overlap of `self` with
// `out` (no check runs) and was measured computing a wrong result.
void PositiveMatmulOutCorruptingOverlap(torch::Tensor buf, const torch::Tensor &w) {
  at::matmul_out(buf, buf.narrow(0, 0, 3), w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'buf.narrow(0, 0, 3)' of 'matmul_out' is a view of its out= argument 'buf'; aten::matmul does not reject this and computes a wrong result: it reads elements it has already written [libtorch-overlapping-inplace]
  // CHECK-FIXES: at::matmul_out(buf, buf.narrow(0, 0, 3).clone(), w);
}

// aten-overlap.json: relu.out runs with a partial overlap and gave the right
// result for the profile measured, which is no reason to trust it.
void PositiveReluOutAcceptedOverlap(torch::Tensor buf) {
  at::relu_out(buf, buf.narrow(0, 0, 3));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'buf.narrow(0, 0, 3)' of 'relu_out' is a view of its out= argument 'buf'; aten::relu does not reject this overlap and the result depends on the order of reads and writes [libtorch-overlapping-inplace]
  // CHECK-FIXES: at::relu_out(buf, buf.narrow(0, 0, 3).clone());
}

void PositiveOutfView(torch::Tensor x, const torch::Tensor &y) {
  at::mul_outf(x.narrow(0, 0, 2), y, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'x.narrow(0, 0, 2)' of 'mul_outf' is a view of its out= argument 'x'
  // CHECK-FIXES: at::mul_outf(x.narrow(0, 0, 2).clone(), y, x);
}

// Positive: an index or mask that aliases the written tensor.

void PositiveIndexIsSelf(torch::Tensor idx, const torch::Tensor &v) {
  idx.index_put_({idx}, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: index 'idx' of 'index_put_' is the same tensor as its destination 'idx'; aten::index_put_ throws 'unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location' even for the same tensor [libtorch-overlapping-inplace]
  // CHECK-FIXES: idx.index_put_({idx.clone()}, v);
}

// aten-overlap.json: index_put_ rejects `values` being `self`, unlike the
// element-wise operators (NegativeElementwiseOnItself). With a tensor index
// the indexing API runs aten::index_put_ (Note [Indexing writes]).
void PositiveValuesAreSelf(torch::Tensor x, const torch::Tensor &i) {
  x.index_put_({i}, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: operand 'x' of 'index_put_' is the same tensor as its destination 'x'; aten::index_put_ throws 'unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location' even for the same tensor [libtorch-overlapping-inplace]
  // CHECK-FIXES: x.index_put_({i}, x.clone());
}

void PositiveMaskIsView(torch::Tensor flags) {
  auto first = flags.select(1, 0);
  flags.masked_fill_(first, false);
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: mask 'first' of 'masked_fill_' is a view of its destination 'flags'
  // CHECK-FIXES: flags.masked_fill_(first.clone(), false);
}

// Positive: one storage in two roles of one operator.

void PositiveTwoWrittenRoles(torch::Tensor scale, torch::Tensor tracker) {
  at::_amp_update_scale_(scale, tracker, tracker, 2.0, 0.5, 2000);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: operand 'tracker' of '_amp_update_scale_' is the same tensor as the argument 'growth_tracker' it also writes 'tracker'; no run-time check covers this and the result depends on the order of reads and writes
  // CHECK-FIXES: at::_amp_update_scale_(scale, tracker, tracker.clone(), 2.0, 0.5, 2000);
}

void PositiveTwoWrittenArguments(torch::Tensor state) {
  at::_amp_update_scale_(state, state, torch::zeros({1}), 2.0, 0.5, 2000);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: operand 'state' of '_amp_update_scale_' is the same tensor as its destination 'state'; no run-time check covers this
}

void PositiveBatchNormRunningStats(const torch::Tensor &input, torch::Tensor stats) {
  // libtorch 1.13.1's schema does not mark running_mean as written; the
  // measured API effect table does (checks/data/libtorch-api-effects.json).
  at::batch_norm(input, stats, stats, stats, stats, true, 0.1, 1e-5, false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: weight 'stats' of 'batch_norm' is the same tensor as the argument 'running_mean' it also writes 'stats'; no run-time check covers this
  // CHECK-FIXES: at::batch_norm(input, stats.clone(), stats, stats, stats, true, 0.1, 1e-5, false);
}

// Negative: disjoint slices of one buffer.

void NegativeDisjointNarrows(torch::Tensor x, int64_t n) {
  x.narrow(0, 0, n).add_(x.narrow(0, n, n));
  x.narrow(1, 0, 2).copy_(x.narrow(1, 2, 2));
  x.index({Slice(0, 3)}).sub_(x.index({Slice(3, 6)}));
}

void NegativeDistinctRows(torch::Tensor rows) {
  rows[0].copy_(rows[-1]);
  rows.select(0, 1).copy_(rows.select(0, 2));
}

void NegativeDistinctChunks(const torch::Tensor &x) {
  auto parts = x.chunk(2);
  parts[0].add_(parts[1]);
}

void NegativeDisjointNamedViews(torch::Tensor x, int64_t half) {
  auto lo = x.narrow(0, 0, half);
  auto hi = x.narrow(0, half, half);
  lo.add_(hi);
}

void NegativeFrameByFrame(torch::Tensor frames, int64_t T, int64_t F) {
  for (int64_t t = 0; t + 1 < T; ++t)
    frames.select(0, t).copy_(frames.select(0, t + 1));
  for (int64_t t = 0; t + 1 < T; ++t)
    frames.narrow(0, t * F, F).copy_(frames.narrow(0, (t + 1) * F, F));
  for (int64_t offset : {0, 4, 8})
    frames.narrow(1, offset, 2).copy_(frames.narrow(1, offset + 2, 2));
}

// Negative: accumulate=true, clones, fresh masks, the destination itself.

void NegativeAccumulate(torch::Tensor hist, const torch::Tensor &bins,
                        const torch::Tensor &ones) {
  hist.index_put_({bins}, ones, /*accumulate=*/true);
}

void NegativeClone(torch::Tensor a, torch::Tensor buf) {
  a.sub_(a.slice(1, 0, 1).clone());
  buf.slice(1, 1).copy_(buf.slice(1, 0, -1).clone());
  auto copy = a.narrow(0, 0, 1).clone();
  a.add_(copy);
}

void NegativeFreshMask(torch::Tensor t) {
  t.masked_fill_(t > 0, 0);
  auto mask = t.gt(1);
  t.masked_fill_(mask, 1);
}

void NegativeElementwiseOnItself(torch::Tensor a) {
  a.add_(a);
  a.mul_(a.detach());
  a.narrow(0, 0, 1).copy_(a.narrow(0, 0, 1));
}

// aten-overlap.json: add.out accepts an input that is exactly `out`
// (`add_out(x, x, other)` is `x.add_(other)`); cat.out's exact alias is
// untested, so cat_out keeps being reported (PositiveCatOut).
void NegativeAddOutExactAlias(torch::Tensor x, const torch::Tensor &other) {
  at::add_out(x, x, other);
  at::add_outf(x, other, 1, x);
}

// Basic-index writes at provably different positions: index_put_ writes
// `frames.index({Slice(), k})`, which shares nothing with slot k - 1. This is
// the frame shift of a rolling observation buffer, and it is correct code.
void NegativeFrameShiftIndexPut(torch::Tensor frames, int64_t n) {
  for (int64_t k = n - 1; k > 0; --k)
    frames.index_put_({Slice(), k}, frames.index({Slice(), k - 1}));
  frames.index_put_({Slice(), 3}, frames.index({Slice(), 2}));
  frames.index_put_({0}, frames.index({1}));
  for (int64_t k = n - 1; k > 0; --k)
    frames.index({Slice(), k}) = frames.index({Slice(), k - 1});
  for (int64_t k = n - 1; k > 0; --k)
    frames[k] = frames[k - 1];
}

void NegativeDisjointConstantSlices(torch::Tensor buf, int64_t k) {
  buf.index_put_({Slice(0, 2)}, buf.index({Slice(2, 4)}));
  buf.index_put_({Slice(), Slice(k, k + 2)}, buf.index({Slice(), Slice(k + 2, k + 4)}));
  buf.index({Slice(), k}).copy_(buf.index({Slice(), k - 1}));
}

void NegativeOtherTensor(torch::Tensor a, const torch::Tensor &b) {
  a.sub_(b.slice(1, 0, 1));
  at::add_out(a, b, b);
}

// Undecidable ranges are only reported with WarnOnPossibleOverlap (see
// options.cpp).
void NegativeSymbolicRanges(torch::Tensor x, int64_t i, int64_t j) {
  x.narrow(0, i, 2).copy_(x.narrow(0, j, 2));
}

// aten-overlap.json: mm.out, bmm.out and matmul.out run with their out=
// argument as an input and compute a wrong result ("corrupts"); addmm.out's
// element-wise `self` may be out=.
void PositiveMatrixProductIntoInput(torch::Tensor a, const torch::Tensor &b,
                                    torch::Tensor h, const torch::Tensor &w) {
  at::mm_out(a, a, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'a' of 'mm_out' is the same tensor as its out= argument 'a'; aten::mm does not reject this and computes a wrong result: it reads elements it has already written
  // CHECK-FIXES: at::mm_out(a, a.clone(), b);
  at::bmm_out(h, w, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'h' of 'bmm_out' is the same tensor as its out= argument 'h'; aten::bmm does not reject this
  // CHECK-FIXES: at::bmm_out(h, w, h.clone());
  at::addmm_out(h, h, w, h);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'h' of 'addmm_out' is the same tensor as its out= argument 'h'; aten::addmm does not reject this
}

void NegativeBiasIntoItself(torch::Tensor bias, const torch::Tensor &m1,
                            const torch::Tensor &m2, torch::Tensor out) {
  at::addmm_out(bias, bias, m1, m2);
  at::mm_out(out, m1, m2);
}
