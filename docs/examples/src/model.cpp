// A model whose helpers write module state through views.
#include "example.h"

TinyNetImpl::TinyNetImpl() {
  fc = register_module("fc", torch::nn::Linear(8, 4));
  running_scale = register_buffer("running_scale", torch::ones({4}));
}

torch::Tensor TinyNetImpl::forward(const torch::Tensor &x) {
  // Bug: the bias is broadcast with expand(); writing the expanded tensor is
  // an internal overlap (PyTorch throws at run time).
  auto bias = running_scale.unsqueeze(0).expand({x.size(0), 4});
  bias.mul_(0.99);
  return fc->forward(x) * running_scale;
}

float TinyNetImpl::first_row_spread() {
  // Bug: meant to centre a copy of the first row, but centres the live
  // weight that the optimizer is training. (Without the guard PyTorch would
  // refuse the write to a view of a leaf that requires grad; with it, the
  // weight changes silently.)
  torch::NoGradGuard no_grad;
  auto row = fc->weight.select(0, 0);
  row.sub_(row.mean());
  return row.abs().max().item<float>();
}
