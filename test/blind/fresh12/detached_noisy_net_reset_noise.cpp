// CASE: a NoisyNet linear layer (Rainbow DQN) resamples its factorised noise
//       buffer through weight_eps.variable_data().copy_(...) in reset_noise();
//       the agent calls reset_noise() right after computing the TD loss and
//       before loss.backward(), while the graph still holds weight_eps as
//       the factor that mu + sigma * eps saved for sigma's gradient
// SOURCE: the kind of code in libtorch Rainbow/NoisyNet ports, where
//         reset_noise() is called "once per learn step" and ends up between
//         the loss and its backward
// KIND: bug
// HARM: sigma's gradient is computed with the next step's noise
#include <torch/torch.h>

#include <cmath>
#include <iostream>

namespace rainbow {

class NoisyLinearImpl : public torch::nn::Module {
 public:
  NoisyLinearImpl(int64_t in, int64_t out) : in_(in), out_(out) {
    double bound = 1.0 / std::sqrt(static_cast<double>(in));
    weight_mu = register_parameter("weight_mu", torch::empty({out, in}).uniform_(-bound, bound));
    weight_sigma = register_parameter("weight_sigma", torch::full({out, in}, 0.5 / std::sqrt(in)));
    bias = register_parameter("bias", torch::zeros({out}));
    weight_eps = register_buffer("weight_eps", torch::zeros({out, in}));
    reset_noise();
  }

  torch::Tensor forward(const torch::Tensor& x) {
    return torch::nn::functional::linear(x, weight_mu + weight_sigma * weight_eps, bias);
  }

  void reset_noise() {
    auto f = [](torch::Tensor t) { return t.sign() * t.abs().sqrt(); };
    auto eps_in = f(torch::randn({in_}));
    auto eps_out = f(torch::randn({out_}));
    weight_eps.variable_data().copy_(eps_out.outer(eps_in));  // BUG(libtorch-detached-write)
  }

  torch::Tensor weight_mu, weight_sigma, bias, weight_eps;

 private:
  int64_t in_, out_;
};
TORCH_MODULE(NoisyLinear);

}  // namespace rainbow

int main() {
  torch::manual_seed(0);
  rainbow::NoisyLinear q_head(8, 3);
  auto obs = torch::randn({16, 8});
  auto actions = torch::randint(0, 3, {16, 1});
  auto targets = torch::randn({16, 1});

  auto eps_used = q_head->weight_eps.clone();
  auto q = q_head(obs).gather(1, actions);
  auto loss = torch::smooth_l1_loss(q, targets);
  q_head->reset_noise();  // BUG(libtorch-detached-write)
  loss.backward();        // BUG(libtorch-detached-write)

  // Reference: the same loss with the noise that was actually used.
  auto sigma = q_head->weight_sigma.detach().clone().requires_grad_(true);
  auto w = q_head->weight_mu.detach() + sigma * eps_used;
  auto q_ref = torch::nn::functional::linear(obs, w, q_head->bias.detach()).gather(1, actions);
  auto g_ref = torch::autograd::grad({torch::smooth_l1_loss(q_ref, targets)}, {sigma})[0];

  double err = (q_head->weight_sigma.grad() - g_ref).abs().max().item<double>();
  if (err > 1e-6)
    std::cout << "HARM: weight_sigma.grad differs from the gradient for the sampled noise by " << err << "\n";
  else
    std::cout << "sigma gradient matches the noise used\n";
  return 0;
}
