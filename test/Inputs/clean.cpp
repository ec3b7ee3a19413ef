#include <torch/torch.h>
torch::Tensor f(const torch::Tensor &x) { return x.narrow(0, 0, 1).clone().zero_(); }
