#include <torch/torch.h>

void zero_head(const torch::Tensor &input) {
  auto head = input.narrow(0, 0, 1);
  head.zero_();
}
