// CASE: a discriminator built as a torch::nn::Sequential puts an in-place
//       Dropout right after an in-place LeakyReLU, both with inplace(true)
// SOURCE: https://github.com/pytorch/pytorch/issues/72992 (nn.LeakyReLU(0.2,
//         inplace=True) then nn.Dropout(0.25, inplace=True) in a Sequential)
//         and https://github.com/pytorch/vision/issues/7174
// KIND: bug
// HARM: backward throws "modified by an inplace operation": the in-place
//       LeakyReLU saved its result and the in-place dropout rewrote it
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(16);
  torch::nn::Sequential disc(
      torch::nn::Linear(16, 32),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2).inplace(true)),  // BUG(libtorch-detached-write)
      torch::nn::Dropout(torch::nn::DropoutOptions(0.25).inplace(true)),  // BUG(libtorch-detached-write)
      torch::nn::Linear(32, 1));
  disc->train();
  torch::optim::Adam opt(disc->parameters(), 2e-4);
  auto real = torch::randn({8, 16});
  auto labels = torch::ones({8, 1});
  try {
    opt.zero_grad();
    auto loss = torch::binary_cross_entropy_with_logits(disc->forward(real), labels);  // BUG(libtorch-detached-write)
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::printf("step ran, loss %.4f\n", loss.item<float>());
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
