// Data augmentation helpers. Several of them write into the caller's batch
// through views, which is what torchalias reports.
#include "example.h"

using torch::indexing::Slice;

static void clamp_pixels(torch::Tensor t) { t.clamp_(0, 1); }

torch::Tensor augment(const torch::Tensor &images) {
  // Bug: 'first' is a view of the caller's images; inverting it in place
  // rewrites the dataset the caller still holds.
  auto first = images.select(0, 0);
  first.mul_(-1).add_(1);

  // Bug: the helper clamps its argument in place, through a view.
  auto rest = images.narrow(0, 1, images.size(0) - 1);
  clamp_pixels(rest);

  // Bug: reshape returns a view for contiguous input, so this scales the
  // caller's images too, but only when they are contiguous.
  auto flat = images.reshape({images.size(0), -1});
  flat.div_(2);

  // Fine: the function owns 'out', filling it through views is the point.
  auto out = torch::empty_like(images);
  for (int64_t i = 0; i < images.size(0); ++i)
    out.select(0, i).copy_(images.select(0, i).flip({-1}));
  return out;
}

void roll_history(torch::Tensor &history, const torch::Tensor &frame) {
  // Bug: shifts the (batch, time) history one step to the right with two
  // overlapping slices. Along the time dimension the slices are not dense, so
  // PyTorch cannot see the overlap and copies frames it already overwrote.
  history.slice(1, 1).copy_(history.slice(1, 0, -1));
  history.select(1, 0).copy_(frame);
}

torch::Tensor normalize_batch(const torch::Tensor &batch) {
  // Fine: works on a clone.
  auto result = batch.clone();
  result.index({Slice(), 0}) -= 0.5;
  return result;
}
