// torchalias/fingerprint.h: a 64-bit fingerprint of a CPU tensor's memory,
// taken with xxHash's XXH3, to tell whether anyone wrote it in between.
//
//   fingerprint(t)                   every byte the tensor's elements occupy
//   fingerprint_bytes(data, size)    a plain byte range
//
// See Note [What a fingerprint covers] in fingerprint.cpp. Fingerprints of
// CUDA memory live in torchalias/cuda/fingerprint.h and are a different
// function: compare a fingerprint only with one taken the same way.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>

namespace torchalias {

std::uint64_t fingerprint_bytes(const void *data, std::size_t size);

// Throws torchalias::error for a tensor that is not a strided CPU tensor.
// An undefined or empty tensor has the fingerprint of zero bytes.
std::uint64_t fingerprint(const at::Tensor &tensor);

} // namespace torchalias
