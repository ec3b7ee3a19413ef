// Mock of the runtime's <torchalias/parameters.h> (runtime/include/torchalias/
// parameters.h) for the lit tests: the declarations fix-its insert calls to.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <vector>

namespace torchalias {
std::vector<at::Tensor> unique_parameters(const std::vector<at::Tensor> &params);
std::vector<at::Tensor> unique_parameters(const torch::nn::Module &module);
template <class Holder> Holder deep_clone(const Holder &holder);
} // namespace torchalias
