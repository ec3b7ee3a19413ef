// CASE: a feature normaliser keeps its running statistics as
//       `std::vector<torch::Tensor> stats(2, torch::zeros({d}))` and passes
//       stats[0] and stats[1] as running_mean and running_var to
//       torch::nn::functional::batch_norm with training(true)
// SOURCE: the std::vector fill-constructor copies one tensor handle into
//         every element (the kind of code in RL observation normalisers,
//         e.g. ports of baselines' RunningMeanStd to libtorch)
// KIND: bug
// HARM: running_mean and running_var are one tensor: after the update the
//       "variance" equals the "mean" and is negative for negative features
#include <torch/torch.h>

#include <cstdio>
#include <vector>

namespace F = torch::nn::functional;

class ObsNormalizer {
 public:
  explicit ObsNormalizer(int64_t dim) : stats_(2, torch::zeros({dim})) {  // BUG(libtorch-overlapping-inplace)
    stats_[1].fill_(1.0);
  }
  torch::Tensor operator()(const torch::Tensor& obs, bool update) {
    return F::batch_norm(obs, stats_[0], stats_[1],  // BUG(libtorch-overlapping-inplace)
                         F::BatchNormFuncOptions().training(update).momentum(0.05));
  }
  const torch::Tensor& mean() const { return stats_[0]; }
  const torch::Tensor& var() const { return stats_[1]; }

 private:
  std::vector<torch::Tensor> stats_;
};

int main() {
  torch::manual_seed(5);
  ObsNormalizer norm(3);
  auto center = torch::tensor({-2.0f, 0.5f, 4.0f});
  for (int i = 0; i < 50; ++i) norm(torch::randn({64, 3}) * 0.5 + center, /*update=*/true);
  auto m = norm.mean(), v = norm.var();
  std::printf("mean = [%.3f %.3f %.3f]  var = [%.3f %.3f %.3f]\n", m[0].item<float>(),
              m[1].item<float>(), m[2].item<float>(), v[0].item<float>(), v[1].item<float>(),
              v[2].item<float>());
  if (m.data_ptr() == v.data_ptr() || v.min().item<float>() < 0.1f)
    std::printf("HARM: running_var is running_mean (var[0] = %.3f, expected ~0.25)\n",
                v[0].item<float>());
  return 0;
}
