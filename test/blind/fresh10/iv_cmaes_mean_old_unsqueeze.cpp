// CASE: a CMA-ES-style optimiser keeps the previous mean as mean_.unsqueeze(0)
//       (for broadcasting against the elite rows), recombines the new mean into
//       mean_ in place with copy_, and then reads the "old" mean to form the
//       mean shift that drives the step-size path
// SOURCE: the kind of evolution-strategy code (CMA-ES / sep-CMA with
//         cumulative step-size adaptation) written with libtorch tensors
// KIND: bug
// HARM: the evolution path sees a zero mean shift although the mean moved, so
//       sigma collapses every generation
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <utility>

namespace es {

class SepCma {
 public:
  SepCma(torch::Tensor x0, double sigma) : mean_(std::move(x0)), sigma_(sigma) {
    const int64_t n = mean_.size(0);
    lambda_ = 4 + static_cast<int64_t>(3 * std::log(static_cast<double>(n)));
    mu_ = lambda_ / 2;
    weights_ = torch::log(torch::tensor(mu_ + 0.5, torch::kDouble)) - torch::arange(1, mu_ + 1, torch::kDouble).log();
    weights_ /= weights_.sum();
    mueff_ = 1.0 / weights_.pow(2).sum().item<double>();
    cs_ = (mueff_ + 2) / (n + mueff_ + 5);
    ds_ = 1 + cs_;
    chi_n_ = std::sqrt(static_cast<double>(n)) * (1 - 1.0 / (4 * n));
    ps_ = torch::zeros_like(mean_);
  }
  torch::Tensor ask() { return mean_.unsqueeze(0) + sigma_ * torch::randn({lambda_, mean_.size(0)}, torch::kDouble); }
  double tell(const torch::Tensor& xs, const torch::Tensor& fitness) {
    auto elite = xs.index_select(0, fitness.argsort().narrow(0, 0, mu_));
    auto mean_old = mean_.unsqueeze(0);  // BUG(libtorch-inplace-on-view)
    mean_.copy_((weights_.unsqueeze(1) * elite).sum(0));  // BUG(libtorch-inplace-on-view)
    auto shift = (mean_ - mean_old.squeeze(0)) / sigma_;  // BUG(libtorch-inplace-on-view)
    const double step = shift.norm().item<double>() * sigma_;
    ps_.mul_(1 - cs_).add_(shift, std::sqrt(cs_ * (2 - cs_) * mueff_));
    sigma_ *= std::exp((cs_ / ds_) * (ps_.norm().item<double>() / chi_n_ - 1));
    return step;
  }
  const torch::Tensor& mean() const { return mean_; }
  double sigma() const { return sigma_; }

 private:
  torch::Tensor mean_, weights_, ps_;
  double sigma_, mueff_ = 0, cs_ = 0, ds_ = 0, chi_n_ = 0;
  int64_t lambda_ = 0, mu_ = 0;
};

}  // namespace es

int main() {
  torch::manual_seed(13);
  auto sphere = [](const torch::Tensor& xs) { return (xs - 3.0).pow(2).sum(1); };
  es::SepCma cma(torch::zeros({8}, torch::kDouble), 0.5);
  double seen = 0, moved = 0;
  for (int gen = 0; gen < 10; ++gen) {
    const auto before = cma.mean().clone();
    auto xs = cma.ask();
    seen += cma.tell(xs, sphere(xs));
    moved += (cma.mean() - before).norm().item<double>();
  }
  std::printf("after 10 generations: sigma %.4f, mean moved %.3f in total, path saw %.3f\n", cma.sigma(), moved, seen);
  if (moved > 0.1 && seen < 1e-9)
    std::printf("HARM: the mean moved %.3f but the evolution path saw a zero shift (sigma %.4f)\n", moved, cma.sigma());
  return 0;
}
