// CASE: TorchSharp/LibTorchSharp-style C exports: each in-place wrapper
//       takes a Tensor handle from managed code, applies exactly the
//       in-place operation the managed method names (narrow(...).copy_,
//       index_put_ on a slice, select(...).fill_) and hands back a new
//       handle to the updated tensor; the "managed" driver allocates with
//       THSTensor_zeros and reads the results
// SOURCE: the kind of code in dotnet/TorchSharp src/Native/LibTorchSharp/THSTensor.cpp
//         (CATCH_TENSOR / ResultTensor thin wrappers around at::Tensor methods)
// KIND: near-miss
// WHY-OK: writing into the caller's tensor is the requested operation: the
//         export is the native half of a managed `tensor.xxx_()` call
#include <torch/torch.h>
#include <cstring>
#include <iostream>

typedef at::Tensor* Tensor;
thread_local char* torch_last_err = nullptr;

#define CATCH_TENSOR(expr)                                  \
  at::Tensor res = at::Tensor();                            \
  try {                                                     \
    res = expr;                                             \
  } catch (const c10::Error& e) {                           \
    torch_last_err = strdup(e.what());                      \
  }                                                         \
  return res.defined() ? new at::Tensor(res) : nullptr;

extern "C" {
Tensor THSTensor_zeros(const int64_t* sizes, int length) {
  CATCH_TENSOR(at::zeros(at::IntArrayRef(sizes, length)))
}
Tensor THSTensor_narrow_copy_(const Tensor tensor, int64_t dim, int64_t start,
                              int64_t length, const Tensor src) {
  CATCH_TENSOR(tensor->narrow(dim, start, length).copy_(*src))
}
Tensor THSTensor_slice_put_scalar_(const Tensor tensor, int64_t start, int64_t stop,
                                   double value) {
  using namespace at::indexing;
  CATCH_TENSOR(tensor->index_put_({Slice(start, stop)}, value))
}
Tensor THSTensor_select_fill_(const Tensor tensor, int64_t dim, int64_t index, double value) {
  CATCH_TENSOR(tensor->select(dim, index).fill_(value))
}
Tensor THSTensor_arange(double end) { CATCH_TENSOR(at::arange(end)) }
void THSTensor_dispose(const Tensor tensor) { delete tensor; }
}

int main() {
  // What `var t = torch.zeros(4, 5); t[.., 1..3] = ...` compiles down to.
  const int64_t sizes[] = {4, 5};
  Tensor t = THSTensor_zeros(sizes, 2);
  Tensor src = THSTensor_arange(8);
  Tensor src2 = new at::Tensor(src->view({4, 2}));
  Tensor r1 = THSTensor_narrow_copy_(t, 1, 1, 2, src2);
  Tensor r2 = THSTensor_slice_put_scalar_(t, 3, 4, -1.0);
  Tensor r3 = THSTensor_select_fill_(t, 1, 4, 9.0);
  if (!r1 || !r2 || !r3) {
    std::cout << "error: " << (torch_last_err ? torch_last_err : "?") << "\n";
    return 1;
  }
  std::cout << *t << "\n";
  for (Tensor h : {t, src, src2, r1, r2, r3}) THSTensor_dispose(h);
  return 0;
}
