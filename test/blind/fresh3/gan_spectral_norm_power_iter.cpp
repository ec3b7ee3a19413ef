// CASE: a GAN discriminator with a hand-written spectral norm estimates
//       sigma = u^T W v from its persistent vectors u_ and v_; the training
//       loop refreshes the estimate for the next step (one power iteration
//       that writes u_ and v_ in place under NoGradGuard) right after the
//       discriminator's forward, before the discriminator loss's backward
// SOURCE: spectral normalisation (Miyato et al.) re-implemented in libtorch,
//       which has no torch::nn::utils::spectral_norm; the power iteration
//       moved out of forward() into the training loop
// KIND: bug
// HARM: backward() throws: u_ was saved by the sigma computation and has
//       been modified in place
#include <torch/torch.h>

#include <iostream>

namespace {

struct SNLinearImpl : torch::nn::Module {
  SNLinearImpl(int64_t in, int64_t out) {
    weight = register_parameter("weight", torch::randn({out, in}) * 0.3);
    bias = register_parameter("bias", torch::zeros({out}));
    u_ = register_buffer("u", torch::nn::functional::normalize(torch::randn({out}),
                                                               torch::nn::functional::NormalizeFuncOptions().dim(0)));
    v_ = register_buffer("v", torch::nn::functional::normalize(torch::randn({in}),
                                                               torch::nn::functional::NormalizeFuncOptions().dim(0)));
  }

  torch::Tensor forward(const torch::Tensor& x) {
    auto sigma = torch::dot(u_, torch::mv(weight, v_));
    return torch::nn::functional::linear(x, weight / sigma, bias);
  }

  void power_iteration() {
    torch::NoGradGuard no_grad;
    auto v = torch::mv(weight.t(), u_);
    v_.copy_(v / (v.norm() + 1e-12));  // BUG(libtorch-detached-write)
    auto u = torch::mv(weight, v_);
    u_.copy_(u / (u.norm() + 1e-12));  // BUG(libtorch-detached-write)
  }

  torch::Tensor weight, bias, u_, v_;
};
TORCH_MODULE(SNLinear);

struct CriticImpl : torch::nn::Module {
  CriticImpl() {
    l1 = register_module("l1", SNLinear(4, 16));
    l2 = register_module("l2", SNLinear(16, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) { return l2->forward(torch::leaky_relu(l1->forward(x), 0.2)); }
  void refresh_spectral_estimates() {
    l1->power_iteration();  // BUG(libtorch-detached-write)
    l2->power_iteration();  // BUG(libtorch-detached-write)
  }
  SNLinear l1{nullptr}, l2{nullptr};
};
TORCH_MODULE(Critic);

}  // namespace

int main() {
  torch::manual_seed(4);
  Critic critic;
  torch::optim::Adam opt_d(critic->parameters(), torch::optim::AdamOptions(2e-4).betas({0.5, 0.999}));

  auto real = torch::randn({8, 4}) + 1.0;
  auto fake = torch::randn({8, 4});
  try {
    auto d_real = critic->forward(real);
    auto d_fake = critic->forward(fake);
    auto loss_d = torch::relu(1.0 - d_real).mean() + torch::relu(1.0 + d_fake).mean();
    critic->refresh_spectral_estimates();  // BUG(libtorch-detached-write)
    opt_d.zero_grad();
    loss_d.backward();
    opt_d.step();
    std::cout << "discriminator step done, loss " << loss_d.item<float>() << "\n";
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::cout << "HARM: discriminator backward failed: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
