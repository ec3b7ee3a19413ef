#pragma once
#include <torch/torch.h>

torch::Tensor augment(const torch::Tensor &images);
torch::Tensor prepare_batch(int64_t n);
torch::Tensor decode_frame();
torch::Tensor normalize_batch(const torch::Tensor &batch);
void roll_history(torch::Tensor &history, const torch::Tensor &frame);
float train_language_model();
float scaled_pixel_sum(int epochs);

struct TinyNetImpl : torch::nn::Module {
  TinyNetImpl();
  torch::Tensor forward(const torch::Tensor &x);
  float first_row_spread();
  torch::nn::Linear fc{nullptr};
  torch::Tensor running_scale;
};
TORCH_MODULE(TinyNet);

float train_step(TinyNet &net, const torch::Tensor &batch);
