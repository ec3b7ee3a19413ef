// CASE: a WGAN critic's weights are clipped in place under NoGradGuard by a
//       helper of the trainer class; the clip runs after the critic loss's
//       backward and the optimizer step, before the next forward
// SOURCE: WGAN weight clipping (https://github.com/martinarjovsky/WassersteinGAN/issues/50
//       discusses where the clip goes), ported to a libtorch trainer class
// KIND: near-miss
// WHY-OK: no graph that saved the critic's weights is still waiting for a
//       backward when the clip writes them
#include <torch/torch.h>

#include <iostream>

namespace {

class WganTrainer {
 public:
  WganTrainer()
      : critic_(torch::nn::Sequential(torch::nn::Linear(2, 16), torch::nn::LeakyReLU(), torch::nn::Linear(16, 1))),
        gen_(torch::nn::Sequential(torch::nn::Linear(3, 16), torch::nn::ReLU(), torch::nn::Linear(16, 2))),
        opt_c_(critic_->parameters(), torch::optim::RMSpropOptions(5e-3)),
        opt_g_(gen_->parameters(), torch::optim::RMSpropOptions(5e-3)) {}

  float critic_step(const torch::Tensor& real) {
    auto fake = gen_->forward(torch::randn({real.size(0), 3})).detach();
    auto loss = critic_->forward(fake).mean() - critic_->forward(real).mean();
    opt_c_.zero_grad();
    loss.backward();
    opt_c_.step();
    clip_critic(0.05);
    return loss.item<float>();
  }

  float generator_step(int64_t n) {
    auto loss = -critic_->forward(gen_->forward(torch::randn({n, 3}))).mean();
    opt_g_.zero_grad();
    loss.backward();
    opt_g_.step();
    return loss.item<float>();
  }

  float max_critic_weight() {
    float m = 0;
    for (auto& p : critic_->parameters()) m = std::max(m, p.detach().abs().max().item<float>());
    return m;
  }

 private:
  void clip_critic(double c) {
    torch::NoGradGuard no_grad;
    for (auto& p : critic_->parameters()) p.clamp_(-c, c);
  }

  torch::nn::Sequential critic_, gen_;
  torch::optim::RMSprop opt_c_, opt_g_;
};

}  // namespace

int main() {
  torch::manual_seed(24);
  WganTrainer trainer;
  try {
    for (int it = 0; it < 5; ++it) {
      auto real = torch::randn({32, 2}) * 0.5 + 2.0;
      float lc = 0;
      for (int k = 0; k < 3; ++k) lc = trainer.critic_step(real);
      float lg = trainer.generator_step(32);
      std::cout << "iter " << it << ": critic " << lc << " generator " << lg << "\n";
    }
    std::cout << "largest critic weight " << trainer.max_critic_weight() << "\n";
  } catch (const std::exception& e) {
    std::cout << "HARM: training failed: " << e.what() << "\n";
  }
  return 0;
}
