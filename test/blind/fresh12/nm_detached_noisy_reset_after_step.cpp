// CASE: a NoisyNet dense layer resamples its noise buffer through
//       eps_.variable_data().copy_(...); the learner calls resample() once per
//       learn step, after loss.backward() and opt.step()
// SOURCE: the kind of code in libtorch Rainbow/NoisyNet ports (reset_noise()
//         at the end of the learn step)
// KIND: near-miss
// WHY-OK: the graph that saved eps_ has been consumed by backward before the
//         buffer is rewritten; the next forward reads the new noise on purpose
#include <torch/torch.h>

#include <cmath>
#include <iostream>

class NoisyDenseImpl : public torch::nn::Module {
 public:
  NoisyDenseImpl(int64_t in, int64_t out) : in_(in), out_(out) {
    double bound = 1.0 / std::sqrt(static_cast<double>(in));
    mu_ = register_parameter("mu", torch::empty({out, in}).uniform_(-bound, bound));
    sigma_ = register_parameter("sigma", torch::full({out, in}, 0.5 / std::sqrt(in)));
    b_ = register_parameter("b", torch::zeros({out}));
    eps_ = register_buffer("eps", torch::zeros({out, in}));
    resample();
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::addmm(b_, x, (mu_ + sigma_ * eps_).t());
  }
  void resample() {
    auto scale = [](const torch::Tensor& t) { return t.sign() * t.abs().sqrt(); };
    eps_.variable_data().copy_(scale(torch::randn({out_})).outer(scale(torch::randn({in_}))));
  }
  const torch::Tensor& sigma() const { return sigma_; }
  const torch::Tensor& mu() const { return mu_; }
  const torch::Tensor& eps() const { return eps_; }
  const torch::Tensor& b() const { return b_; }

 private:
  int64_t in_, out_;
  torch::Tensor mu_, sigma_, b_, eps_;
};
TORCH_MODULE(NoisyDense);

int main() {
  torch::manual_seed(0);
  NoisyDense head(8, 3);
  torch::optim::Adam opt(head->parameters(), torch::optim::AdamOptions(1e-3));
  auto obs = torch::randn({16, 8});
  auto actions = torch::randint(0, 3, {16, 1});
  auto targets = torch::randn({16, 1});

  auto sigma_ref = head->sigma().detach().clone().requires_grad_(true);
  auto q_ref = torch::addmm(head->b().detach(), obs, (head->mu().detach() + sigma_ref * head->eps().clone()).t());
  auto g_ref = torch::autograd::grad({torch::smooth_l1_loss(q_ref.gather(1, actions), targets)}, {sigma_ref})[0];

  opt.zero_grad();
  auto loss = torch::smooth_l1_loss(head(obs).gather(1, actions), targets);
  loss.backward();
  opt.step();
  head->resample();

  double err = (head->sigma().grad() - g_ref).abs().max().item<double>();
  if (err > 1e-6)
    std::cout << "HARM: sigma gradient differs from the sampled noise's by " << err << "\n";
  else
    std::cout << "sigma gradient matches the noise used\n";
  return 0;
}
