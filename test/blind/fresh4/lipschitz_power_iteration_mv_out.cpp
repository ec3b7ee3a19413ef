// CASE: a GAN trainer estimates the Lipschitz constant (largest singular
//       value) of each critic layer by power iteration on W^T W, and to avoid
//       an allocation per iteration writes the product back into the
//       iterate with mv_out(v, gram, v); the output aliases the input vector,
//       which gemv zeroes before reading it
// SOURCE: spectral-norm / Lipschitz-penalty GAN trainers in libtorch;
//         aliasing in matrix-vector products, as in
//         https://github.com/JuliaLang/LinearAlgebra.jl/issues/1073
// KIND: bug
// HARM: the estimate is nan instead of the largest singular value
#include <torch/torch.h>

#include <cmath>
#include <iostream>

double lipschitz_estimate(const torch::Tensor& weight, int iterations) {
  torch::NoGradGuard no_grad;
  auto gram = weight.t().mm(weight);
  auto v = torch::ones({weight.size(1)}) / std::sqrt(static_cast<double>(weight.size(1)));
  for (int i = 0; i < iterations; ++i) {
    torch::mv_out(v, gram, v);  // BUG(libtorch-overlapping-inplace)
    v.div_(v.norm());
  }
  return std::sqrt(v.dot(gram.mv(v)).item<double>());
}

int main() {
  torch::manual_seed(0);
  torch::nn::Linear critic_layer(16, 32);
  const double estimate = lipschitz_estimate(critic_layer->weight, 20);
  const double exact = std::get<1>(torch::svd(critic_layer->weight.detach()))[0].item<double>();
  std::cout << "power-iteration estimate " << estimate << ", largest singular value " << exact << "\n";
  if (!(std::abs(estimate - exact) < 1e-2 * exact))
    std::cout << "HARM: the Lipschitz estimate is " << estimate << " instead of " << exact << "\n";
  return 0;
}
