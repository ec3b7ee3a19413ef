// RUN: %check_clang_tidy %s libtorch-overlapping-inplace %t -- -- %mock_torch

// Which elements two views of one tensor cover: dimensions counted from the
// end, bounds relative to the end of a dimension (a polynomial in its size),
// ranges taken within ranges, and views that keep only part of a tensor.

#include <torch/torch.h>

using torch::indexing::None;
using torch::indexing::Slice;

// Negative: different constant positions along one dimension, counted from
// the end, are different elements.

void NegativeCornersFromCenters(torch::Tensor boxes) {
  boxes.select(-1, 2) += boxes.select(-1, 0);
  boxes.select(-1, 3) += boxes.select(-1, 1);
  boxes.index({"...", 0}).sub_(boxes.index({"...", 2}));
}

void NegativeLastAndFirst(torch::Tensor seq) {
  seq.select(0, -1).copy_(seq.select(0, 0));
  seq[-1].copy_(seq[-2]);
}

void NegativeDisjointFromTheEnd(torch::Tensor x) {
  x.narrow(-1, 0, 2).copy_(x.narrow(-1, 2, 2));
  x.slice(0, -2).copy_(x.slice(0, 0, 2).clone());
}

// Negative: an unknown dimension, or a view that keeps an unknown part, says
// nothing either way.
void NegativeUnknownDimension(torch::Tensor x, int64_t d) {
  x.select(d, 0).add_(x.select(d, 1));
  x.diagonal().add_(x.select(0, 1));
  x.select(-1, 0).add_(x.select(2, 1));
}

// Negative: single-slot shifts, and a left shift done slot by slot.
void NegativeSlotBySlot(torch::Tensor frames, int64_t n) {
  for (int64_t k = 1; k < n; ++k)
    frames.index_put_({Slice(), k - 1}, frames.index({Slice(), k}));
  frames.index_put_({Slice(), -1}, frames.index({Slice(), -2}));
}

// Negative: copies of blocks somewhere inside a dimension may be blocks
// apart.
void NegativeBlocks(torch::Tensor buf, int64_t pos, int64_t len) {
  buf.narrow(0, pos, len).copy_(buf.narrow(0, 0, len));
}

// Positive: the frame-stack shift `x[:, :-k] = x[:, k:]`, spelled with the
// indexing API and with narrow.

void PositiveFrameStackShift(torch::Tensor x, int64_t k) {
  x.index_put_({Slice(), Slice(None, -k)}, x.index({Slice(), Slice(k, None)}));
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: source 'x.index({Slice(), Slice(k, None)})' of 'index_put_' overlaps (a shifted slice along dimension 1 of) its destination 'x' at '{Slice(), Slice(None, -k)}'
  // CHECK-FIXES: x.index_put_({Slice(), Slice(None, -k)}, x.index({Slice(), Slice(k, None)}).clone());
}

void PositiveFrameStackShiftRight(torch::Tensor x, int64_t k) {
  x.index({Slice(), Slice(k, None)}) = x.index({Slice(), Slice(None, -k)});
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: operand 'x.index({Slice(), Slice(None, -k)})' of 'operator=' overlaps (a shifted slice along dimension 1 of) its destination 'x.index({Slice(), Slice(k, None)})'
}

void PositiveNarrowShift(torch::Tensor buf, int64_t n, int64_t k) {
  buf.narrow(1, 0, n - k).copy_(buf.narrow(1, k, n - k));
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: source 'buf.narrow(1, k, n - k)' of 'copy_' overlaps (a shifted slice along dimension 1 of) its destination 'buf.narrow(1, 0, n - k)'
  // CHECK-FIXES: buf.narrow(1, 0, n - k).copy_(buf.narrow(1, k, n - k).clone());
}

void PositiveDifferences(torch::Tensor x) {
  x.slice(0, 0, -1).sub_(x.slice(0, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: operand 'x.slice(0, 1)' of 'sub_' overlaps (a shifted slice along dimension 0 of) its destination 'x.slice(0, 0, -1)'
  // CHECK-FIXES: x.slice(0, 0, -1).sub_(x.slice(0, 1).clone());
}

// Positive: one position along a dimension counted from the end, inside a
// range of the same dimension.
void PositiveSelectInsideNarrow(torch::Tensor boxes) {
  boxes.narrow(-1, 0, 2).sub_(boxes.select(-1, 1).unsqueeze(-1));
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: operand 'boxes.select(-1, 1).unsqueeze(-1)' of 'sub_' overlaps its destination 'boxes.narrow(-1, 0, 2)'
}

// Positive: a range within a range covers the elements it is placed at, not
// those at its own offsets.
void PositiveRangeWithinRange(torch::Tensor x) {
  x.narrow(0, 2, 4).narrow(0, 0, 2).add_(x.narrow(0, 3, 2));
  // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: operand 'x.narrow(0, 3, 2)' of 'add_' overlaps its destination 'x.narrow(0, 2, 4).narrow(0, 0, 2)'
  // CHECK-FIXES: x.narrow(0, 2, 4).narrow(0, 0, 2).add_(x.narrow(0, 3, 2).clone());
}

void NegativeRangeWithinRange(torch::Tensor x) {
  x.narrow(0, 2, 4).narrow(0, 0, 2).add_(x.narrow(0, 0, 2));
}

// The shift by a member (the frame stack's channel count), read twice in
// the writing call: one value there.

class FrameStack {
public:
  void PositiveShiftByMember() {
    frames_.index_put_({Slice(), Slice(None, -channels_)},
                       frames_.index({Slice(), Slice(channels_, None)}));
    // CHECK-MESSAGES: :[[@LINE-2]]:13: warning: source 'frames_.index({Slice(), Slice(channels_, None)})' of 'index_put_' overlaps (a shifted slice along dimension 1 of) its destination 'frames_' at '{Slice(), Slice(None, -channels_)}'
    // CHECK-FIXES: frames_.index({Slice(), Slice(channels_, None)}).clone());
  }
  void NegativeAdjacentSlotsByMember() {
    frames_.index_put_({Slice(), Slice(0, channels_)},
                       frames_.index({Slice(), Slice(channels_, 2 * channels_)}));
  }

private:
  int64_t channels_ = 3;
  torch::Tensor frames_;
};
