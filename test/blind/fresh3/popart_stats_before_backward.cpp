// CASE: a PPO value head with PopArt-style return normalisation
//       de-normalises its output with running statistics (value =
//       v_norm * sigma + mu); the agent updates the statistics with this
//       batch's returns through .data() after computing the value loss but
//       before calling backward()
// SOURCE: PopArt / ValueNorm in PPO implementations (e.g. MAPPO's
//       ValueNorm), ported to a libtorch agent; the statistics update placed
//       between forward and backward
// KIND: bug
// HARM: the value head's gradient is scaled by the new sigma instead of the
//       sigma the loss was computed with
#include <torch/torch.h>

#include <iostream>

namespace {

struct PopArtHeadImpl : torch::nn::Module {
  PopArtHeadImpl(int64_t in) {
    fc = register_module("fc", torch::nn::Linear(in, 1));
    mu = register_buffer("mu", torch::zeros({1}));
    sigma = register_buffer("sigma", torch::ones({1}));
  }

  torch::Tensor forward(const torch::Tensor& h) { return fc->forward(h) * sigma + mu; }

  void update_stats(const torch::Tensor& returns, double beta) {
    auto new_mu = mu * (1 - beta) + returns.mean() * beta;
    auto new_sq = (sigma.pow(2) + mu.pow(2)) * (1 - beta) + returns.pow(2).mean() * beta;
    auto new_sigma = (new_sq - new_mu.pow(2)).clamp_min(1e-4).sqrt();
    mu.data().copy_(new_mu);        // BUG(libtorch-detached-write)
    sigma.data().copy_(new_sigma);  // BUG(libtorch-detached-write)
  }

  torch::nn::Linear fc{nullptr};
  torch::Tensor mu, sigma;
};
TORCH_MODULE(PopArtHead);

torch::Tensor value_grad(bool update_between) {
  torch::manual_seed(6);
  PopArtHead head(5);
  {
    torch::NoGradGuard no_grad;
    head->mu.fill_(0.5);
    head->sigma.fill_(2.0);
  }
  auto features = torch::randn({16, 5});
  auto returns = torch::randn({16, 1}) * 10 + 3;

  auto value = head->forward(features);
  auto loss = (value - returns).pow(2).mean();
  if (update_between) {
    head->update_stats(returns, 0.3);  // BUG(libtorch-detached-write)
    loss.backward();
  } else {
    loss.backward();
    head->update_stats(returns, 0.3);
  }
  return head->fc->weight.grad().clone();
}

}  // namespace

int main() {
  auto got = value_grad(/*update_between=*/true);
  auto want = value_grad(/*update_between=*/false);
  std::cout << "value-head weight grad: " << got << "\nreference: " << want << "\n";
  if (!torch::allclose(got, want, 1e-5, 1e-6)) {
    std::cout << "HARM: the statistics update changed the saved sigma; gradient off by "
              << (got - want).abs().max().item<float>() << "\n";
  }
  return 0;
}
