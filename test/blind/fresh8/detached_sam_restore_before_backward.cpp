// CASE: a Sharpness-Aware Minimization wrapper climbs to w + e through
//       p.detach().add_(e), computes the loss at the perturbed point, and
//       the training loop restores the weights (p.detach().sub_(e)) before
//       calling backward on that loss
// SOURCE: SAM (Foret et al.) as ported to libtorch training loops; the
//       restore-then-backward ordering mirrors a recurring mistake in SAM
//       re-implementations (first_step / second_step split wrongly)
// KIND: bug
// HARM: backward throws because the weights saved by the sharp forward were
//       modified in place before it ran
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

namespace sam {

class SharpnessAware {
 public:
  SharpnessAware(std::vector<torch::Tensor> params, double rho)
      : params_(std::move(params)), rho_(rho) {}

  // w <- w + rho * g / ||g||
  void climb() {
    std::vector<torch::Tensor> norms;
    for (const auto& p : params_) norms.push_back(p.grad().norm());
    const auto total = torch::stack(norms).norm() + 1e-12;
    offsets_.clear();
    for (auto& p : params_) {
      auto e = p.grad() * (rho_ / total);
      p.detach().add_(e);
      offsets_.push_back(e);
    }
  }

  // w <- w - e
  void restore() {
    for (size_t i = 0; i < params_.size(); ++i) params_[i].detach().sub_(offsets_[i]);  // BUG(libtorch-detached-write)
  }

 private:
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> offsets_;
  double rho_;
};

}  // namespace sam

int main() {
  torch::manual_seed(6);
  torch::nn::Sequential net(torch::nn::Linear(6, 12), torch::nn::ReLU(), torch::nn::Linear(12, 2));
  torch::optim::SGD base(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  sam::SharpnessAware sharp(net->parameters(), 0.05);

  const auto x = torch::randn({32, 6});
  const auto y = torch::randint(0, 2, {32}, torch::kLong);
  auto closure = [&] { return torch::nn::functional::cross_entropy(net->forward(x), y); };

  for (int epoch = 0; epoch < 2; ++epoch) {
    base.zero_grad();
    closure().backward();
    sharp.climb();
    base.zero_grad();

    const auto sharp_loss = closure();
    sharp.restore();  // BUG(libtorch-detached-write)
    try {
      sharp_loss.backward();
      base.step();
      std::printf("epoch %d: sharp loss %.4f\n", epoch, sharp_loss.item<double>());
    } catch (const c10::Error& e) {
      const std::string what = e.what();
      std::printf("HARM: SAM's second backward failed: %s\n",
                  what.substr(0, what.find('\n')).c_str());
      break;
    }
  }
  return 0;
}
