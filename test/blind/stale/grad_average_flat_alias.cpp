// CASE: after an all-reduce that summed a gradient over the workers, the
//       gradient is averaged in place and the norm of the averaged gradient
//       is logged through a flat view({-1}) alias taken before the division
// SOURCE: the kind of code in hand-written data-parallel loops (bucketed
//         gradients, a flat alias for norms and clipping)
// KIND: near-miss
// WHY-OK: the flat alias is meant to see the averaged values; the norm is of
//         the gradient after div_, as intended
#include <torch/torch.h>
#include <cmath>
#include <iostream>

float average_and_norm(torch::Tensor& grad, int64_t world_size) {
  auto flat = grad.view({-1});
  grad.div_(double(world_size));   // summed -> averaged
  return flat.norm().item<float>();
}

int main() {
  const int64_t world = 3;
  auto grad = torch::full({4, 3}, 6.0);   // sum over 3 workers of 2.0 each
  float norm = average_and_norm(grad, world);
  float expected = 2.0f * std::sqrt(12.0f);
  std::cout << "averaged gradient norm " << norm << " (expected " << expected << ")\n";
  if (std::abs(norm - expected) > 1e-4f)
    std::cout << "HARM: the logged norm is not the averaged gradient's: " << norm << "\n";
  return 0;
}
