// CASE: running statistics (mean and variance rows of one buffer) are
//       updated with an in-place EMA; the convergence test compares the new
//       mean with the old one, kept as stats.chunk(2, 0)[0] (a view)
// SOURCE: the kind of code that estimates input normalisation statistics
//         before training (running mean/var with momentum, stop when stable)
// KIND: bug
// HARM: the loop "converges" after the first batch with a mean far from 3
#include <torch/torch.h>
#include <iostream>

int main() {
  torch::manual_seed(0);
  const int64_t channels = 3;
  const double momentum = 0.9;
  auto stats = torch::zeros({2, channels});   // row 0: mean, row 1: var
  int it = 0;
  for (; it < 200; ++it) {
    auto batch = torch::randn({64, channels}) * 2.0 + 3.0;
    auto old_mean = stats.chunk(2, 0)[0];                              // BUG(libtorch-inplace-on-view)
    auto batch_stats = torch::stack({batch.mean(0), batch.var(0)});
    stats.mul_(momentum).add_(batch_stats, 1.0 - momentum);            // BUG(libtorch-inplace-on-view)
    float shift = (stats[0] - old_mean).abs().max().item<float>();     // BUG(libtorch-inplace-on-view)
    if (shift < 1e-3f) break;
  }
  float mean0 = stats[0][0].item<float>();
  std::cout << "stopped after " << it + 1 << " batches, running mean " << mean0 << "\n";
  if (it == 0)
    std::cout << "HARM: converged after one batch with running mean " << mean0
              << " (data mean is 3)\n";
  return 0;
}
