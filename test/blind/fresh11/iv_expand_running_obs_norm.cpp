// CASE: an RL observation normaliser (Chan et al. parallel mean/variance
//       update) broadcasts the running mean over the batch once with
//       expand() as "the old mean", updates mean_ in place with add_, and
//       then uses the expanded view for the M2 correction term, which now
//       reads the new mean
// SOURCE: the kind of code in PPO / SAC observation and reward normalisers
//         (RunningMeanStd ports to C++)
// KIND: bug
// HARM: the running variance drifts away from the variance of the data seen
#include <torch/torch.h>
#include <iostream>
#include <vector>

namespace rl {

class RunningMeanStd {
 public:
  explicit RunningMeanStd(int64_t dim)
      : mean_(torch::zeros({dim})), m2_(torch::zeros({dim})) {}

  void update(const torch::Tensor& batch) {
    const double n = batch.size(0);
    const double tot = count_ + n;
    auto old_mean = mean_.expand({batch.size(0), -1});  // BUG(libtorch-inplace-on-view)
    auto delta = batch.mean(0) - mean_;
    mean_.add_(delta, n / tot);  // BUG(libtorch-inplace-on-view)
    // Welford: M2 += sum((x - old_mean) * (x - new_mean))
    m2_.add_(((batch - old_mean) * (batch - mean_)).sum(0));  // BUG(libtorch-inplace-on-view)
    count_ = tot;
  }

  torch::Tensor var() const { return m2_ / count_; }
  torch::Tensor normalise(const torch::Tensor& obs) const {
    return (obs - mean_) / (var().sqrt() + 1e-8);
  }

 private:
  torch::Tensor mean_, m2_;
  double count_ = 0;
};

}  // namespace rl

int main() {
  torch::manual_seed(0);
  rl::RunningMeanStd rms(4);
  std::vector<torch::Tensor> seen;
  for (int it = 0; it < 5; ++it) {
    auto obs = torch::randn({64, 4}) * 2.0 + double(it);  // non-stationary rollouts
    rms.update(obs);
    seen.push_back(obs);
  }
  auto all = torch::cat(seen, 0);
  auto true_var = all.var(0, /*unbiased=*/false);
  double err = (rms.var() - true_var).abs().max().item<double>();
  std::cout << "running var " << rms.var() << "\ntrue var " << true_var << "\n";
  if (err > 1e-3)
    std::cout << "HARM: running variance is off by " << err << "\n";
  return 0;
}
