// torchalias/cuda/fingerprint.h: fingerprints of device memory, computed by
// a kernel on a given stream (library TorchAlias::runtime_cuda).
//
//   fingerprint_async(ptr, bytes, stream)  enqueue; returns a handle
//   pending_fingerprint::get()             wait for the stream, read result
//   fingerprint(ptr, bytes, stream)        both at once
//   fingerprint_reference(host_ptr, bytes) the same function on the host
//   device_available()                     false without a usable GPU
//   fingerprint_async(tensor)              tensor's span, current stream;
//                                          only where libtorch has CUDA
//   install_tensor_fingerprinter()         makes torchalias::fingerprint()
//                                          and worker_guard hash CUDA
//                                          tensors; also done when the
//                                          library loads; same condition
//
// Nothing crosses to the host until get(). The value is not XXH3 of the
// bytes: see Note [Device fingerprint] in fingerprint.cu. Compare it only
// with another fingerprint taken by this header.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#if TORCHALIAS_WITH_TORCH_CUDA
#include <ATen/core/Tensor.h>
#endif

namespace torchalias::cuda {

bool device_available();

// Owns an 8-byte device accumulator on `stream` until read or destroyed.
class pending_fingerprint {
public:
  pending_fingerprint(unsigned long long *accumulator, std::size_t bytes,
                      cudaStream_t stream);
  pending_fingerprint(pending_fingerprint &&other) noexcept;
  pending_fingerprint &operator=(pending_fingerprint &&) = delete;
  pending_fingerprint(const pending_fingerprint &) = delete;
  ~pending_fingerprint();

  // Synchronises `stream`. Throws torchalias::error on a CUDA error or when
  // called twice.
  std::uint64_t get();

private:
  unsigned long long *accumulator_;
  std::size_t bytes_;
  cudaStream_t stream_;
};

// `device_data` must stay valid until the stream reaches the kernel.
pending_fingerprint fingerprint_async(const void *device_data,
                                      std::size_t bytes, cudaStream_t stream);
std::uint64_t fingerprint(const void *device_data, std::size_t bytes,
                          cudaStream_t stream);
std::uint64_t fingerprint_reference(const void *host_data, std::size_t bytes);

#if TORCHALIAS_WITH_TORCH_CUDA
// Hashes the tensor's byte span (gaps of a non-dense tensor included) on
// the current stream of its device.
pending_fingerprint fingerprint_async(const at::Tensor &tensor);

// Registers the CUDA fingerprinter with the CPU library (fingerprint.h).
// Idempotent. See Note [Registering the CUDA fingerprinter] in
// cuda/tensor_fingerprint.cpp.
void install_tensor_fingerprinter();
#endif

} // namespace torchalias::cuda
