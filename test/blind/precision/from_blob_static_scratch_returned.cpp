// CASE: a camera SDK callback converts each raw Bayer frame into RGB floats
//       in a function-local `static` scratch array (to avoid a malloc per
//       frame) and returns `torch::from_blob(scratch, ...)` without a copy;
//       the capture loop keeps the last two frames to compute motion
// SOURCE: the kind of code in libtorch robotics / camera-ingest nodes
//         (ROS image callbacks, GStreamer appsink handlers) and the
//         discuss.pytorch.org threads "from_blob tensor values change after
//         the next frame"
// KIND: bug
// HARM: every returned tensor aliases the one scratch array, so the previous
//       frame turns into the current one and the motion energy is zero
#include <torch/torch.h>
#include <cstdint>
#include <iostream>
#include <vector>

constexpr int64_t kH = 6, kW = 8;

torch::Tensor debayer(const std::vector<uint16_t>& raw) {
  static float scratch[3 * kH * kW];
  for (int64_t y = 0; y < kH; ++y)
    for (int64_t x = 0; x < kW; ++x) {
      float v = raw[y * kW + x] / 4095.0f;  // 12-bit sensor
      for (int c = 0; c < 3; ++c) scratch[(c * kH + y) * kW + x] = v;
    }
  return torch::from_blob(scratch, {3, kH, kW}, torch::kFloat); // BUG(libtorch-from-blob-escape)
}

int main() {
  torch::Tensor prev, cur;
  for (int frame = 0; frame < 3; ++frame) {
    std::vector<uint16_t> raw(kH * kW, static_cast<uint16_t>(500 * (frame + 1)));
    prev = cur;
    cur = debayer(raw);
  }
  auto motion = (cur - prev).abs().mean().item<float>();
  std::cout << "motion energy between the last two frames: " << motion << "\n";
  if (motion == 0.0f)
    std::cout << "HARM: prev and cur share the static scratch buffer; the previous frame "
                 "now reads " << prev.mean().item<float>() * 4095 << " instead of 1000\n";
  return 0;
}
