// CASE: a motion detector keeps a view of the oldest frame of its history
//       ring, then shifts the history by one slot in place and appends the
//       new frame, and finally measures motion against the saved "oldest" view
// SOURCE: https://github.com/openai/baselines/issues/246 (frame-stack rolling
//         and which slot holds which frame)
// KIND: bug
// HARM: the motion measured against the oldest frame is computed against the
//       second-oldest frame instead
#include <torch/torch.h>

#include <cstdio>

class FrameHistory {
 public:
  explicit FrameHistory(int64_t n) : frames_(torch::zeros({n, 8})) {}
  void push(const torch::Tensor& frame) {
    const int64_t n = frames_.size(0);
    frames_.narrow(0, 0, n - 1).copy_(frames_.narrow(0, 1, n - 1).clone());  // BUG(libtorch-inplace-on-view)
    frames_[n - 1].copy_(frame);
  }
  torch::Tensor oldest() const { return frames_[0]; }  // BUG(libtorch-inplace-on-view)
  torch::Tensor newest() const { return frames_[frames_.size(0) - 1]; }

 private:
  torch::Tensor frames_;
};

int main() {
  FrameHistory hist(4);
  for (int k = 0; k < 4; ++k) hist.push(torch::full({8}, static_cast<float>(k)));

  auto oldest = hist.oldest();  // frame 0  // BUG(libtorch-inplace-on-view)
  const float expected_motion = 4.0f - 0.0f;
  hist.push(torch::full({8}, 4.0f));  // frame 4 arrives
  const float motion = (hist.newest() - oldest).abs().mean().item<float>();  // BUG(libtorch-inplace-on-view)

  std::printf("motion between frame 4 and frame 0: %.1f (expected %.1f)\n", motion, expected_motion);
  if (motion != expected_motion) {
    std::printf("HARM: the saved oldest frame now holds frame 1 (motion %.1f)\n", motion);
  }
  return 0;
}
