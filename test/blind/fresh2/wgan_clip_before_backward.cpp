// CASE: a WGAN critic update computes the critic loss, then calls a helper
//       that clips every critic weight in place through .data() (the WGAN
//       Lipschitz trick), and only then runs backward
// SOURCE: https://blog.slaterstich.com/posts/gans_3/
// KIND: bug
// HARM: backward silently uses the clipped weights that the forward pass
//       never saw, so the gradients are wrong (no error is raised: .data()
//       does not bump the version counter)
#include <torch/torch.h>

#include <iostream>

static torch::nn::Sequential make_critic() {
  return torch::nn::Sequential(
      torch::nn::Linear(4, 16),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Linear(16, 1));
}

static void clip_weights(torch::nn::Module& critic, double c) {
  for (auto& p : critic.parameters()) {
    p.data().clamp_(-c, c);  // BUG(libtorch-inplace-on-view)
  }
}

static torch::Tensor critic_loss(torch::nn::Sequential& critic,
                                 const torch::Tensor& real,
                                 const torch::Tensor& fake) {
  return critic->forward(fake).mean() - critic->forward(real).mean();
}

int main() {
  torch::manual_seed(0);
  auto critic = make_critic();
  torch::nn::Sequential reference(
      std::dynamic_pointer_cast<torch::nn::SequentialImpl>(critic->clone()));
  auto real = torch::randn({32, 4}) + 1.0;
  auto fake = torch::randn({32, 4});

  // What the gradient of this loss is.
  critic_loss(reference, real, fake).backward();

  // The training step as written.
  auto loss = critic_loss(critic, real, fake);
  clip_weights(*critic, 0.01);  // BUG(libtorch-inplace-on-view)
  loss.backward();

  auto got = critic->parameters()[0].grad();
  auto want = reference->parameters()[0].grad();
  double err = (got - want).abs().max().item<double>();
  std::cout << "max error in the first layer's weight gradient: " << err << "\n";
  if (err > 1e-5) {
    std::cout << "HARM: backward used the clipped weights, the gradient is off by " << err << "\n";
  }
  return 0;
}
