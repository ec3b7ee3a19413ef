// Mock of <torch/extension.h> for the lit tests; see ATen/ATen.h for the
// rules. The real header brings in pybind11, whose PYBIND11_MODULE defines a
// function that takes the module and binds functions with def().
#pragma once

#include <torch/torch.h>

#include <type_traits>

namespace pybind11 {
class module_ {
public:
  template <typename Func, typename... Extra>
  module_ &def(const char *name_, Func &&f, const Extra &...extra) {
    return *this;
  }
};
struct arg {
  explicit arg(const char *name);
};
} // namespace pybind11
namespace py = pybind11;

#define PYBIND11_MODULE(name, variable)                                        \
  void pybind11_init_##name(::pybind11::module_ &(variable))
