// CASE: the max-norm constraint on the output layer is applied under
//       NoGradGuard after optimizer.step(), writing the parameter in place
// SOURCE: https://androidkt.com/one-of-the-variables-needed-for-gradient-computation-has-been-modified-by-an-inplace-operation/
//         (in-place changes are fine once nothing saved for backward needs the
//         old value)
// KIND: near-miss
// WHY-OK: backward() has already run; the write only affects the next step
#include <torch/torch.h>

#include <cstdio>

int main() {
  torch::manual_seed(24);
  torch::nn::Linear hidden(10, 32), out(32, 5);
  torch::optim::SGD opt({hidden->weight, hidden->bias, out->weight, out->bias}, 0.1);
  auto x = torch::randn({8, 10});
  auto y = torch::randint(5, {8});
  const double max_norm = 0.5;

  for (int it = 0; it < 3; ++it) {
    opt.zero_grad();
    auto loss = torch::cross_entropy_loss(out(torch::relu(hidden(x))), y);
    try {
      loss.backward();
    } catch (const c10::Error& e) {
      std::printf("HARM: %s\n", e.what_without_backtrace());
      return 0;
    }
    opt.step();
    torch::NoGradGuard no_grad;
    auto norms = out->weight.norm(2, 1, /*keepdim=*/true).clamp_min(max_norm);
    out->weight.mul_(max_norm / norms);
  }
  std::printf("max row norm %.4f\n", out->weight.norm(2, 1).max().item<double>());
  return 0;
}
