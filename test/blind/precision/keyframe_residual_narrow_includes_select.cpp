// CASE: a learned-video-codec data loader turns each group of pictures into
//       residuals against its keyframe in place, looping over the groups:
//       `clip.narrow(0, start, gop).sub_(clip.select(0, start))`; the narrow
//       starts at the keyframe itself (it should start at start + 1), so the
//       operand row lies inside the written range
// SOURCE: the kind of code in libtorch video-compression / frame-differencing
//         pipelines (keyframe + residual encoding, TSN "RGB diff" inputs);
//         cf. pytorch/pytorch issues on partial overlap in in-place binary ops
// KIND: bug
// HARM: the keyframe row is both read and written; libtorch refuses the op
//       with c10::Error (and a layout it cannot check would silently zero
//       the keyframe before the other frames subtract it)
#include <torch/torch.h>
#include <iostream>

torch::Tensor encode_residuals_(torch::Tensor clip, int64_t gop) {
  const int64_t frames = clip.size(0);
  for (int64_t start = 0; start < frames; start += gop) {
    const int64_t len = std::min(gop, frames - start);
    clip.narrow(0, start, len).sub_(clip.select(0, start)); // BUG(libtorch-overlapping-inplace)
  }
  return clip;
}

int main() {
  auto clip = torch::rand({8, 3, 16, 16});  // 8 decoded frames
  auto expected = clip.clone();
  for (int64_t s = 0; s < 8; s += 4)  // intended: keyframe kept, the rest as residuals
    expected.narrow(0, s + 1, 3).sub_(clip.select(0, s));
  try {
    auto res = encode_residuals_(clip, /*gop=*/4);
    if (!torch::allclose(res, expected))
      std::cout << "HARM: the residuals are wrong (keyframe overwritten before use)\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
