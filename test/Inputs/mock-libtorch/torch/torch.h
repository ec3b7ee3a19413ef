// Mock of <torch/torch.h> for the lit tests; see ATen/ATen.h for the rules.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace torch {
using namespace at; // as torch/types.h does
using at::Tensor;
namespace indexing = at::indexing;
namespace autograd { using Variable = at::Tensor; }
// torch:: factories are distinct functions that set up autograd.
Tensor empty(at::IntArrayRef size, at::TensorOptions options = {});
Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {});
Tensor ones(at::IntArrayRef size, at::TensorOptions options = {});
Tensor rand(at::IntArrayRef size, at::TensorOptions options = {});
Tensor randn(at::IntArrayRef size, at::TensorOptions options = {});
Tensor tensor(std::initializer_list<float> values);
Tensor from_blob(void *data, at::IntArrayRef sizes,
                 const at::TensorOptions &options = {});
constexpr auto kFloat = at::kFloat;
constexpr auto kByte = at::kByte;

struct NoGradGuard { NoGradGuard(); ~NoGradGuard(); };

namespace nn {
class Module {
public:
  virtual ~Module() = default;
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  Tensor &register_parameter(std::string name, Tensor tensor,
                             bool requires_grad = true);
  Tensor &register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              std::shared_ptr<ModuleType> module);
  void train(bool on = true);
  void eval();
};
template <typename Contained> class ModuleHolder {
public:
  ModuleHolder();
  template <typename... Args> explicit ModuleHolder(Args &&...args);
  Contained *operator->();
  const Contained *operator->() const;
  Contained &operator*();
  std::shared_ptr<Contained> ptr() const;
};
struct LinearOptions { LinearOptions(int64_t in, int64_t out); };
class LinearImpl : public Module {
public:
  LinearImpl(int64_t in, int64_t out);
  explicit LinearImpl(const LinearOptions &options);
  Tensor forward(const Tensor &input);
  Tensor weight;
  Tensor bias;
};
class Linear : public ModuleHolder<LinearImpl> {
public:
  using ModuleHolder<LinearImpl>::ModuleHolder;
  Tensor operator()(const Tensor &input);
};
namespace init {
Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor zeros_(Tensor tensor);
} // namespace init
} // namespace nn
} // namespace torch
