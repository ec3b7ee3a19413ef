#include <torch/torch.h>

torch::Tensor scaled(const torch::Tensor &input) { return input * 2; }
