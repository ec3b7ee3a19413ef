// CASE: a WGAN critic update clips the critic weights through .data() right
//       after computing the loss and before backward(), instead of after the
//       optimizer step; backward then reads the clipped weights it saved
// SOURCE: https://e-com-net.com/article/1279942790742032384.htm (quoting the
//         PyTorch 0.4 migration notes: changes through .data are not tracked by
//         autograd, so computed gradients are wrong if the tensor is needed in
//         backward)
// KIND: bug
// HARM: the first layer's gradient differs from the gradient of the loss
//       that was actually computed, with no error
#include <torch/torch.h>

#include <cstdio>
#include <vector>

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

  // Reference: the gradient of this loss at the weights the forward pass used.
  auto ref_loss = critic(fake).mean() - critic(real).mean();
  auto ref_grad = torch::autograd::grad({ref_loss}, {critic->fc1->weight})[0];

  opt.zero_grad();
  auto loss = critic(fake).mean() - critic(real).mean();
  for (auto& p : critic->parameters()) {
    p.data().clamp_(-clip, clip);  // BUG(libtorch-detached-write)
  }
  loss.backward();  // BUG(libtorch-detached-write)

  const double err = (critic->fc1->weight.grad() - ref_grad).abs().max().item<double>();
  std::printf("max |grad - reference grad| for fc1.weight: %.6g\n", err);
  if (err > 1e-6) std::printf("HARM: backward used the clipped weights; gradient off by %.6g\n", err);
  opt.step();
  return 0;
}
