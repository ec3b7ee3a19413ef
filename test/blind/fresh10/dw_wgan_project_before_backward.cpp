// CASE: a WGAN critic update "projects onto the constraint set first" by
//       clamping the critic's weights under NoGradGuard right after the two
//       critic forwards and before the loss's backward, instead of after the
//       optimizer step
// SOURCE: modelled on WGAN weight-clipping loops (clamp every critic parameter
//         to [-c, c]) as ported to the C++ frontend, with the clipping moved up
// KIND: bug
// HARM: the critic's backward throws: a weight saved by the forward was
//       modified by an in-place operation
#include <torch/torch.h>

#include <cstdio>
#include <string>

namespace gan {

struct CriticImpl : torch::nn::Module {
  CriticImpl() : net(register_module("net", torch::nn::Sequential(torch::nn::Linear(2, 32), torch::nn::LeakyReLU(),
                                                                   torch::nn::Linear(32, 32), torch::nn::LeakyReLU(),
                                                                   torch::nn::Linear(32, 1)))) {}
  torch::Tensor forward(const torch::Tensor& x) { return net->forward(x); }
  torch::nn::Sequential net;
};
TORCH_MODULE(Critic);

template <class Module>
void clip_weights_(Module& m, double c) {
  torch::NoGradGuard no_grad;
  for (auto& p : m->parameters()) p.clamp_(-c, c);  // BUG(libtorch-detached-write)
}

class Trainer {
 public:
  Trainer(Critic critic, torch::nn::Sequential gen)
      : critic_(critic), gen_(gen), opt_(critic_->parameters(), torch::optim::RMSpropOptions(5e-5)) {}

  double critic_step(const torch::Tensor& real) {
    opt_.zero_grad();
    auto fake = gen_->forward(torch::randn({real.size(0), 4})).detach();
    auto loss = critic_->forward(fake).mean() - critic_->forward(real).mean();
    clip_weights_(critic_, clip_);  // BUG(libtorch-detached-write)
    loss.backward();
    opt_.step();
    return loss.item<double>();
  }

 private:
  Critic critic_;
  torch::nn::Sequential gen_;
  torch::optim::RMSprop opt_;
  double clip_ = 0.01;
};

}  // namespace gan

int main() {
  torch::manual_seed(9);
  gan::Critic critic;
  torch::nn::Sequential gen(torch::nn::Linear(4, 32), torch::nn::ReLU(), torch::nn::Linear(32, 2));
  gan::Trainer trainer(critic, gen);
  auto real = torch::randn({64, 2}) * 0.5 + 2.0;
  try {
    for (int it = 0; it < 5; ++it) std::printf("critic step %d: W-loss %.5f\n", it, trainer.critic_step(real));
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::printf("HARM: critic backward failed: %s\n", what.substr(0, what.find('\n')).c_str());
  }
  return 0;
}
