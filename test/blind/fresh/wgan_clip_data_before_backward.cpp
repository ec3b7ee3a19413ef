// CASE: a WGAN critic step that clips the critic's weights through .data()
//       after the critic loss is built but before that loss's backward
// SOURCE: the weight clipping of WGAN training loops
//         (github.com/martinarjovsky/WassersteinGAN, main.py), moved between
//         the loss and backward(), as asked about in discuss.pytorch.org
//         threads on WGAN weight clipping
// KIND: bug
// HARM: the first layer's gradient is computed with the clipped second-layer
//       weights instead of the ones the forward used; no error is raised
#include <torch/torch.h>

#include <iostream>

static torch::nn::Sequential make_critic() {
  return torch::nn::Sequential(
      torch::nn::Linear(4, 16),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2)),
      torch::nn::Linear(16, 1));
}

// One critic update as written in the training script.
static void critic_step(torch::nn::Sequential& critic, torch::optim::RMSprop& opt,
                        const torch::Tensor& real, const torch::Tensor& fake,
                        double clip) {
  opt.zero_grad();
  auto loss = critic->forward(fake).mean() - critic->forward(real).mean();  // BUG(libtorch-detached-write)
  for (auto& p : critic->parameters()) {
    p.data().clamp_(-clip, clip);  // BUG(libtorch-detached-write)
  }
  loss.backward();  // BUG(libtorch-detached-write)
}

int main() {
  torch::manual_seed(0);
  auto real = torch::randn({64, 4}) + 2.0;
  auto fake = torch::randn({64, 4});

  // Reference: the gradient of the critic as the forward saw it.
  torch::manual_seed(1);
  auto ref_critic = make_critic();
  auto ref_loss =
      ref_critic->forward(fake).mean() - ref_critic->forward(real).mean();
  ref_loss.backward();
  auto ref_grad = ref_critic->parameters()[0].grad().clone();

  torch::manual_seed(1);
  auto critic = make_critic();
  torch::optim::RMSprop opt(critic->parameters(),
                            torch::optim::RMSpropOptions(5e-5));
  critic_step(critic, opt, real, fake, 0.01);
  auto grad = critic->parameters()[0].grad();

  double diff = (grad - ref_grad).abs().max().item<double>();
  if (diff > 1e-6) {
    std::cout << "HARM: first-layer gradient differs from the forward's "
                 "gradient by " << diff << " (norm " << grad.norm().item<double>()
              << " instead of " << ref_grad.norm().item<double>() << ")\n";
  } else {
    std::cout << "gradient matches\n";
  }
  return 0;
}
