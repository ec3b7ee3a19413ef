// CASE: the capture thread clones the from_blob view of its staging buffer
//       before pushing it, so decoding the next frame into the buffer is safe
// SOURCE: https://github.com/mhubii/libtorch_custom_dataset/issues/1 (return a
//         clone of a from_blob tensor)
// KIND: near-miss
// WHY-OK: each queued tensor owns its storage; the staging memory is only
//         rewritten after the copy was taken
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

int main() {
  constexpr int H = 6, W = 8, C = 3;
  std::mutex m;
  std::queue<torch::Tensor> frames;
  std::vector<float> staging(H * W * C);

  std::thread capture([&] {
    for (int k = 0; k < 3; ++k) {
      std::fill(staging.begin(), staging.end(), static_cast<float>(k + 1));
      auto owned = torch::from_blob(staging.data(), {H, W, C}, torch::kFloat32).clone();
      std::lock_guard<std::mutex> l(m);
      frames.push(owned.permute({2, 0, 1}));
    }
  });
  capture.join();

  std::vector<float> seen;
  std::thread infer([&] {
    std::lock_guard<std::mutex> l(m);
    while (!frames.empty()) {
      seen.push_back(frames.front().mean().item<float>());
      frames.pop();
    }
  });
  infer.join();

  std::printf("consumer saw frame means %.1f %.1f %.1f\n", seen[0], seen[1], seen[2]);
  if (seen[0] != 1.0f || seen[2] != 3.0f) std::printf("HARM: frames were overwritten\n");
  return 0;
}
