// Built only where libtorch has CUDA (c10_cuda found); Debian's has not.
#include "torchalias/cuda/fingerprint.h"

#include "torchalias/error.h"
#include "torchalias/overlap.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace torchalias::cuda {

pending_fingerprint fingerprint_async(const at::Tensor &tensor) {
  TORCHALIAS_CHECK(tensor.defined() && tensor.is_cuda(),
                   "cuda::fingerprint_async() needs a CUDA tensor");
  const c10::cuda::CUDAGuard device_guard(tensor.device());
  const byte_span span = span_of(tensor);
  return fingerprint_async(reinterpret_cast<const void *>(span.begin),
                           span.end - span.begin,
                           c10::cuda::getCurrentCUDAStream().stream());
}

} // namespace torchalias::cuda
