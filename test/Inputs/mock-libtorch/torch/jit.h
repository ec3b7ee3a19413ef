// Mock of torch::jit::fork for the lit tests; see ATen/ATen.h for the rules.
//
// Debian's libtorch 1.13.1 does not declare torch::jit::fork in its public C++
// API (its <torch/jit.h> has only torch::jit::compile). The declaration below
// has the shape of upstream's C++ fork: a callable and its arguments in, run on
// the inter-op thread pool, and a future of the result out. intrusive_ptr,
// IValue and ivalue::Future carry only what the tests use of
// c10/util/intrusive_ptr.h and ATen/core/ivalue.h.
#pragma once

#include <torch/torch.h>

namespace c10 {
template <class TTarget> class intrusive_ptr {
public:
  TTarget *operator->() const noexcept;
  TTarget &operator*() const noexcept;
};
template <class TTarget, class... Args>
intrusive_ptr<TTarget> make_intrusive(Args &&...args);
struct IValue {
  bool isTensor() const;
  const at::Tensor &toTensor() const &;
};
namespace ivalue {
// ATen/core/ivalue_inl.h: markCompleted runs the callbacks added so far.
struct Future {
  void wait();
  template <typename T> void addCallback(T callback) { (void)callback; }
  void markCompleted();
  IValue value();
  const IValue &constValue() const;
};
} // namespace ivalue
} // namespace c10

namespace torch {
namespace jit {
template <class Function, class... Args>
c10::intrusive_ptr<c10::ivalue::Future> fork(Function &&f, Args &&...args) {
  return {};
}
} // namespace jit
} // namespace torch
