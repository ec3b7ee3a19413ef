#pragma once
#include <torch/torch.h>

torch::Tensor augment(const torch::Tensor &images);
torch::Tensor normalize_batch(const torch::Tensor &batch);

struct TinyNetImpl : torch::nn::Module {
  TinyNetImpl();
  torch::Tensor forward(const torch::Tensor &x);
  float first_row_spread();
  torch::nn::Linear fc{nullptr};
  torch::Tensor running_scale;
};
TORCH_MODULE(TinyNet);
