// Mock of <torch/library.h> for the lit tests; see ATen/ATen.h for the rules.
// TORCH_LIBRARY and TORCH_LIBRARY_IMPL expand, as the real macros do, to the
// definition of a function that takes the library and registers operators
// with def() and impl().
#pragma once

#include <torch/torch.h>

#include <type_traits>

namespace c10 {
template <class FuncType, FuncType *func_ptr> struct CompileTimeFunctionPointer {};
} // namespace c10

namespace torch {
class CppFunction {
public:
  template <typename Func> explicit CppFunction(Func *f);
};
template <typename Func> CppFunction dispatch(int key, Func &&raw_f);
class Library final {
public:
  template <typename Schema> Library &def(Schema &&raw_schema) & {
    return *this;
  }
  template <typename NameOrSchema, typename Func>
  Library &def(NameOrSchema &&raw_name_or_schema, Func &&raw_f) & {
    return *this;
  }
  template <typename Name, typename Func>
  Library &impl(Name name, Func &&raw_f) & {
    return *this;
  }
};
} // namespace torch

#define TORCH_FN(func)                                                         \
  ::c10::CompileTimeFunctionPointer<                                           \
      std::remove_pointer_t<std::remove_reference_t<decltype(func)>>, func>()
#define TORCH_LIBRARY(ns, m) void TORCH_LIBRARY_init_##ns(torch::Library &m)
#define TORCH_LIBRARY_IMPL(ns, k, m)                                           \
  void TORCH_LIBRARY_IMPL_init_##ns##_##k(torch::Library &m)
