// CASE: a tied-weight autoencoder registers its decoder weight with
//       register_parameter("dec_weight", enc->weight); a hand-written
//       momentum SGD keeps one velocity buffer per entry of
//       model->parameters() and steps each entry
// SOURCE: https://github.com/mlverse/torch/issues/305 (shared weights are
//         duplicated in the parameter list) with the per-entry optimizer
//         state of ports of classic momentum SGD
// KIND: bug
// HARM: the tied matrix appears twice, gets two velocity buffers and moves by
//       two steps per update
#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct TiedAEImpl : torch::nn::Module {
  TiedAEImpl() {
    enc = register_module("enc", torch::nn::Linear(20, 8));
    dec_weight = register_parameter("dec_weight", enc->weight);  // BUG(libtorch-shared-parameter-update)
    dec_bias = register_parameter("dec_bias", torch::zeros({20}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::linear(torch::sigmoid(enc(x)), dec_weight.t(), dec_bias);
  }
  torch::nn::Linear enc{nullptr};
  torch::Tensor dec_weight, dec_bias;
};
TORCH_MODULE(TiedAE);

class MomentumSGD {
 public:
  MomentumSGD(std::vector<torch::Tensor> params, double lr, double momentum)
      : params_(std::move(params)), lr_(lr), momentum_(momentum) {
    for (auto& p : params_) velocity_.push_back(torch::zeros_like(p));
  }
  void zero_grad() {
    for (auto& p : params_)
      if (p.grad().defined()) p.mutable_grad().zero_();
  }
  void step() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      velocity_[i].mul_(momentum_).add_(params_[i].grad());
      params_[i].sub_(lr_ * velocity_[i]);  // BUG(libtorch-shared-parameter-update)
    }
  }

 private:
  std::vector<torch::Tensor> params_, velocity_;
  double lr_, momentum_;
};

int main() {
  torch::manual_seed(23);
  TiedAE ae;
  const double lr = 0.1;
  MomentumSGD opt(ae->parameters(), lr, 0.9);  // BUG(libtorch-shared-parameter-update)
  auto x = torch::rand({32, 20});
  opt.zero_grad();
  torch::mse_loss(ae(x), x).backward();
  auto w = ae->enc->weight;
  auto expected = (w - lr * w.grad()).detach();
  opt.step();
  const double err = (w.detach() - expected).abs().max().item<double>();
  std::printf("parameters() has %zu entries; tied weight error after one step %.6g\n",
              ae->parameters().size(), err);
  if (err > 1e-7) std::printf("HARM: the tied weight was stepped twice (error %.6g)\n", err);
  return 0;
}
