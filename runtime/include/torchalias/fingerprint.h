// torchalias/fingerprint.h: a 64-bit fingerprint of a tensor's memory, to
// tell whether anyone wrote it in between. On the CPU it is xxHash's XXH3;
// other devices use a fingerprinter registered for their device type.
//
//   fingerprint(t)                   every byte the tensor's elements occupy
//   fingerprint_bytes(data, size)    a plain byte range
//   register_device_fingerprinter(type, fn)
//                                    how fingerprint() hashes tensors of a
//                                    non-CPU device type (runtime_cuda
//                                    registers CUDA's)
//   can_fingerprint(t)               whether fingerprint(t) would succeed
//
// See Note [What a fingerprint covers] and Note [Device fingerprinters] in
// fingerprint.cpp. Compare a fingerprint only with one taken of a tensor on
// the same device type: CUDA memory is hashed by a different function.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/DeviceType.h>

#include <cstddef>
#include <cstdint>

namespace torchalias {

std::uint64_t fingerprint_bytes(const void *data, std::size_t size);

// A strided CPU tensor is hashed here; a strided tensor on another device
// by the fingerprinter registered for its device type. Throws
// torchalias::error for anything else. An undefined or empty tensor has the
// fingerprint of zero bytes.
std::uint64_t fingerprint(const at::Tensor &tensor);

// Receives a defined, non-empty, strided tensor of the registered device
// type; may throw.
using device_fingerprinter = std::uint64_t (*)(const at::Tensor &tensor);

// Sets (or, with nullptr, removes) the fingerprinter for `type` and returns
// the one it replaces. Thread-safe. Throws torchalias::error for the CPU,
// whose fingerprint is fixed, and for a type out of range.
device_fingerprinter register_device_fingerprinter(c10::DeviceType type,
                                                   device_fingerprinter fn);

// True for an undefined or empty tensor, a strided CPU tensor, and a
// strided tensor whose device type has a fingerprinter.
bool can_fingerprint(const at::Tensor &tensor);

} // namespace torchalias
