// CASE: a Sharpness-Aware Minimization wrapper climbs to w + e through
//       p.detach().add_(e), computes the loss at the perturbed point, and
//       restores the weights with p.detach().sub_(e)
// SOURCE: SAM (Foret et al.) as ported to libtorch training loops
// KIND: near-miss
// WHY-OK: the restore runs after the sharp loss's backward and before the
//       base optimizer's step, which is SAM's intended order: no graph that
//       saved the weights is still waiting for backward when they are written
#include <torch/torch.h>

#include <cstdio>
#include <vector>

namespace sam {

class SharpnessAware {
 public:
  SharpnessAware(std::vector<torch::Tensor> params, double rho)
      : params_(std::move(params)), rho_(rho) {}

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

  void restore() {
    for (size_t i = 0; i < params_.size(); ++i) params_[i].detach().sub_(offsets_[i]);
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

  for (int epoch = 0; epoch < 3; ++epoch) {
    base.zero_grad();
    closure().backward();
    sharp.climb();
    base.zero_grad();

    const auto sharp_loss = closure();
    sharp_loss.backward();
    sharp.restore();
    base.step();
    std::printf("epoch %d: sharp loss %.4f\n", epoch, sharp_loss.item<double>());
  }
  return 0;
}
