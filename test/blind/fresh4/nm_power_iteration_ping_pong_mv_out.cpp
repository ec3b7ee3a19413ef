// CASE: a GAN trainer estimates the Lipschitz constant (largest singular
//       value) of each critic layer by power iteration on W^T W without an
//       allocation per iteration: mv_out writes into a second preallocated
//       vector and the two buffers are swapped
// SOURCE: spectral-norm / Lipschitz-penalty GAN trainers in libtorch
// KIND: near-miss
// WHY-OK: mv_out's output (next) never overlaps its input (v); the swap only
//         exchanges handles
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <utility>

double lipschitz_estimate(const torch::Tensor& weight, int iterations) {
  torch::NoGradGuard no_grad;
  auto gram = weight.t().mm(weight);
  auto v = torch::ones({weight.size(1)}) / std::sqrt(static_cast<double>(weight.size(1)));
  auto next = torch::empty_like(v);
  for (int i = 0; i < iterations; ++i) {
    torch::mv_out(next, gram, v);
    next.div_(next.norm());
    std::swap(v, next);
  }
  return std::sqrt(v.dot(gram.mv(v)).item<double>());
}

int main() {
  torch::manual_seed(0);
  torch::nn::Linear critic_layer(16, 32);
  const double estimate = lipschitz_estimate(critic_layer->weight, 200);
  const double exact = std::get<1>(torch::svd(critic_layer->weight.detach()))[0].item<double>();
  std::cout << "power-iteration estimate " << estimate << ", largest singular value " << exact << "\n";
  if (!(std::abs(estimate - exact) < 1e-2 * exact))
    std::cout << "HARM: the Lipschitz estimate is " << estimate << " instead of " << exact << "\n";
  return 0;
}
