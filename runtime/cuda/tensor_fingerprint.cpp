// Built only where libtorch has CUDA (c10_cuda found); Debian's has not.
#include "torchalias/cuda/fingerprint.h"

#include "torchalias/error.h"
#include "torchalias/fingerprint.h"
#include "torchalias/overlap.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

namespace torchalias::cuda {
namespace {

std::uint64_t fingerprint_cuda_tensor(const at::Tensor &tensor) {
  return fingerprint_async(tensor).get();
}

// Note [Registering the CUDA fingerprinter]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// torchalias::fingerprint(), and so worker_guard, hash CUDA tensors through
// the fingerprinter registered for DeviceType::CUDA (Note [Device
// fingerprinters] in fingerprint.cpp). This library registers it while it
// is loaded, so linking TorchAlias::runtime_cuda is enough. A linker that
// drops libraries nothing refers to (--as-needed) drops it with its
// initialiser, so install_tensor_fingerprinter() does the same explicitly
// and, being called, keeps the library. The fingerprint covers the
// tensor's byte span, gaps of a non-dense tensor included, and is taken on
// the current stream of the tensor's device, synchronising it.
[[maybe_unused]] const bool registered_at_load =
    (install_tensor_fingerprinter(), true);

} // namespace

pending_fingerprint fingerprint_async(const at::Tensor &tensor) {
  TORCHALIAS_CHECK(tensor.defined() && tensor.is_cuda(),
                   "cuda::fingerprint_async() needs a CUDA tensor");
  const c10::cuda::CUDAGuard device_guard(tensor.device());
  const byte_span span = span_of(tensor);
  return fingerprint_async(reinterpret_cast<const void *>(span.begin),
                           span.end - span.begin,
                           c10::cuda::getCurrentCUDAStream().stream());
}

void install_tensor_fingerprinter() {
  register_device_fingerprinter(c10::DeviceType::CUDA,
                                fingerprint_cuda_tensor);
}

} // namespace torchalias::cuda
