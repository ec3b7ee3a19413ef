// CASE: an Atari-style frame stack (stack, C, H, W), oldest frame first, is
//       advanced in place by `stack.narrow(0, 0, n - 1).copy_(stack.narrow(0, 1, n - 1))`
//       before the new frame is written into the last slot; the stack is
//       preallocated once per environment to avoid a torch::cat per step
// SOURCE: the kind of code in libtorch DQN/PPO agents (ports of the
//         baselines FrameStack / LazyFrames wrappers), cf. pytorch/pytorch
//         issues on overlapping copy_ ("unsupported operation: some elements
//         of the input tensor and the written-to tensor refer to a single
//         memory location")
// KIND: bug
// HARM: source and destination overlap; libtorch rejects the copy with
//       c10::Error and the agent's step fails
#include <torch/torch.h>
#include <iostream>

void push_frame(torch::Tensor& stack, const torch::Tensor& frame) {
  const int64_t n = stack.size(0);
  stack.narrow(0, 0, n - 1).copy_(stack.narrow(0, 1, n - 1)); // BUG(libtorch-overlapping-inplace)
  stack[n - 1].copy_(frame);
}

torch::Tensor preprocess(const torch::Tensor& rgb) {  // (3, 210, 160) -> (1, 84, 84)
  auto grey = rgb.to(torch::kFloat).mean(0, /*keepdim=*/true).unsqueeze(0);
  return torch::nn::functional::interpolate(
             grey, torch::nn::functional::InterpolateFuncOptions().size(
                       std::vector<int64_t>{84, 84}))
      .squeeze(0)
      .div_(255.0);
}

int main() {
  auto stack = torch::zeros({4, 1, 84, 84});
  try {
    for (int t = 0; t < 6; ++t) {
      auto obs = torch::full({3, 210, 160}, 10 * t, torch::kUInt8);
      push_frame(stack, preprocess(obs));
    }
    auto newest = stack[3].mean().item<float>() * 255, oldest = stack[0].mean().item<float>() * 255;
    std::cout << "newest " << newest << " oldest " << oldest << "\n";
    if (std::abs(oldest - 20.0f) > 1e-3)
      std::cout << "HARM: the overlapping shift smeared the frame stack\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
