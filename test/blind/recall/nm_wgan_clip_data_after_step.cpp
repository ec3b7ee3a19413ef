// CASE: the WGAN critic update clips the weights through .data() after
//       backward() and the optimizer step, as the original algorithm does
// SOURCE: https://apxml.com/courses/generative-adversarial-networks-gans/chapter-3-gan-training-stabilization/wgan-weight-clipping
//         (weight clipping is applied after each gradient update)
// KIND: near-miss
// WHY-OK: the graph that saved the weights has been consumed by backward()
//         before the write; the next forward pass sees the clipped values
#include <torch/torch.h>

#include <cstdio>

struct CriticImpl : torch::nn::Module {
  CriticImpl() {
    fc1 = register_module("fc1", torch::nn::Linear(4, 8));
    fc2 = register_module("fc2", torch::nn::Linear(8, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::leaky_relu(fc1(x), 0.2)); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Critic);

int main() {
  torch::manual_seed(23);
  Critic critic;
  torch::optim::RMSprop opt(critic->parameters(), 5e-5);
  auto real = torch::randn({16, 4}) + 1.0;
  auto fake = torch::randn({16, 4});
  const double clip = 0.01;

  for (int it = 0; it < 3; ++it) {
    auto ref_loss = critic(fake).mean() - critic(real).mean();
    auto ref_grad = torch::autograd::grad({ref_loss}, {critic->fc1->weight})[0];

    opt.zero_grad();
    auto loss = critic(fake).mean() - critic(real).mean();
    loss.backward();
    const double err = (critic->fc1->weight.grad() - ref_grad).abs().max().item<double>();
    if (err > 1e-6) std::printf("HARM: gradient does not match the loss (error %.6g)\n", err);
    opt.step();
    for (auto& p : critic->parameters()) p.data().clamp_(-clip, clip);
  }
  std::printf("max |w| after clipping: %.4f\n", critic->fc1->weight.abs().max().item<double>());
  return 0;
}
