// CASE: a video-decoder callback converts an NV12 frame to RGB into a local
//       std::vector<uint8_t>, wraps it with torch::from_blob as (H, W, 3),
//       and returns `.permute({2, 0, 1}).contiguous()` — a CHW copy made
//       before the vector is destroyed at the end of the function
// SOURCE: the kind of code in libtorch video pipelines (torchvision
//         io/decoder, pytorch/audio StreamReader-style C++ frame conversion,
//         discuss.pytorch.org "from_blob cv::Mat permute contiguous" threads)
// KIND: near-miss
// WHY-OK: for a 3-channel image of more than one pixel, permute(2, 0, 1) is
//         not contiguous, so contiguous() always copies out of the buffer
//         while it is still alive
#include <torch/torch.h>
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <vector>

struct Nv12Frame {
  int width, height;
  std::vector<uint8_t> y, uv;  // full-res luma, half-res interleaved chroma
};

static uint8_t clamp8(float v) { return static_cast<uint8_t>(std::clamp(v, 0.f, 255.f)); }

torch::Tensor frame_to_chw(const Nv12Frame& f) {
  TORCH_CHECK(f.width > 1 && f.height > 1, "degenerate frame");
  std::vector<uint8_t> rgb(static_cast<size_t>(f.width) * f.height * 3);
  for (int r = 0; r < f.height; ++r)
    for (int c = 0; c < f.width; ++c) {
      float Y = f.y[r * f.width + c];
      float U = f.uv[(r / 2) * f.width + (c / 2) * 2] - 128.f;
      float V = f.uv[(r / 2) * f.width + (c / 2) * 2 + 1] - 128.f;
      uint8_t* px = &rgb[(r * f.width + c) * 3];
      px[0] = clamp8(Y + 1.402f * V);
      px[1] = clamp8(Y - 0.344f * U - 0.714f * V);
      px[2] = clamp8(Y + 1.772f * U);
    }
  return torch::from_blob(rgb.data(), {f.height, f.width, 3}, torch::kUInt8)
      .permute({2, 0, 1})
      .contiguous();
}

int main() {
  Nv12Frame f{4, 4, std::vector<uint8_t>(16, 100), std::vector<uint8_t>(8, 128)};
  f.y[5] = 200;
  auto chw = frame_to_chw(f);
  std::vector<uint8_t> scratch(48, 7);  // reuses the freed heap chunk, if any
  std::cout << "chw " << chw.sizes() << " pixel(1,1) = "
            << chw.select(1, 1).select(1, 1).to(torch::kInt) << "\n";
  std::cout << "grey pixel(0,0) R=" << chw[0][0][0].item<int>() << " (expected 100)\n";
  return 0;
}
