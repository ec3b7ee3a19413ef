#include "torchalias/cuda/fingerprint.h"

#include "torchalias/error.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>

#define TORCHALIAS_CUDA_CHECK(expr)                                            \
  do {                                                                         \
    cudaError_t torchalias_status_ = (expr);                                   \
    TORCHALIAS_CHECK(torchalias_status_ == cudaSuccess, #expr, " failed: ",   \
                     cudaGetErrorString(torchalias_status_));                  \
  } while (0)

namespace torchalias::cuda {
namespace {

// Note [Device fingerprint]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// xxHash has no device build, and XXH3 is a sequential chain over the
// input, so a kernel cannot compute it at memory bandwidth. The kernel
// computes instead the sum, modulo 2^64, of one mixed value per 8-byte
// word: the word is keyed with its position, then folded with a 32x32->64
// multiply as XXH3's accumulator step does, plus the word itself rotated.
// Addition commutes, so any grid and any order of atomics give the same
// sum; keying by position makes moved or swapped words count. The host
// finalises the sum with XXH3 (seeded with the length) when it reads it.
// One changed word changes the sum unless its mixed value collides; this is
// a fingerprint against accidental writes, not a defence against an
// adversary.
constexpr std::uint64_t position_multiplier = 0x9E3779B185EBCA87ull;
constexpr std::uint64_t position_offset = 0x165667B19E3779F9ull;

__host__ __device__ inline std::uint64_t mix_word(std::uint64_t word,
                                                  std::uint64_t index) {
  const std::uint64_t keyed =
      word ^ (index * position_multiplier + position_offset);
  return (keyed & 0xFFFFFFFFull) * (keyed >> 32) + ((word << 31) | (word >> 33));
}

// A trailing partial word is zero-padded; the length seeds the finaliser.
__host__ __device__ inline std::uint64_t load_word(const unsigned char *data,
                                                   std::size_t available) {
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < 8 && i < available; ++i)
    word |= static_cast<std::uint64_t>(data[i]) << (8 * i);
  return word;
}

constexpr int threads_per_block = 256;

__device__ void add_to_accumulator(std::uint64_t sum,
                                   unsigned long long *accumulator) {
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
  if (threadIdx.x % 32 == 0)
    atomicAdd(accumulator, static_cast<unsigned long long>(sum));
}

// Aligned data: 16-byte loads, four in flight per thread per iteration.
__global__ void fingerprint_aligned(const ulonglong2 *pairs,
                                    std::size_t pair_count,
                                    unsigned long long *accumulator) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint64_t sum = 0;
  for (; p + 3 * stride < pair_count; p += 4 * stride) {
    ulonglong2 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
      v[k] = pairs[p + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::size_t word = 2 * (p + k * stride);
      sum += mix_word(v[k].x, word) + mix_word(v[k].y, word + 1);
    }
  }
  for (; p < pair_count; p += stride) {
    const ulonglong2 v = pairs[p];
    sum += mix_word(v.x, 2 * p) + mix_word(v.y, 2 * p + 1);
  }
  add_to_accumulator(sum, accumulator);
}

// Anything else (a view starting mid-word, the tail after the pairs): one
// word per thread, assembled from bytes.
__global__ void fingerprint_words(const unsigned char *data, std::size_t bytes,
                                  std::size_t first_word,
                                  unsigned long long *accumulator) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t words = (bytes + 7) / 8;
  std::uint64_t sum = 0;
  for (std::size_t w = first_word + std::size_t(blockIdx.x) * blockDim.x +
                       threadIdx.x;
       w < words; w += stride)
    sum += mix_word(load_word(data + 8 * w, bytes - 8 * w), w);
  add_to_accumulator(sum, accumulator);
}

// Eight resident blocks per SM keep enough loads in flight; more blocks
// only add atomics.
int grid_limit() {
  int device = 0;
  TORCHALIAS_CUDA_CHECK(cudaGetDevice(&device));
  static std::mutex mutex;
  static int cached_device = -1, cached_limit = 0;
  std::lock_guard<std::mutex> lock(mutex);
  if (cached_device != device) {
    int sms = 0;
    TORCHALIAS_CUDA_CHECK(cudaDeviceGetAttribute(
        &sms, cudaDevAttrMultiProcessorCount, device));
    cached_device = device;
    cached_limit = sms * 8;
  }
  return cached_limit;
}

unsigned blocks_for(std::size_t items, int limit) {
  const std::size_t wanted = (items + threads_per_block - 1) / threads_per_block;
  return static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(wanted, limit)));
}

std::uint64_t finalise(std::uint64_t sum, std::size_t bytes) {
  return XXH3_64bits_withSeed(&sum, sizeof sum, bytes);
}

} // namespace

bool device_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

pending_fingerprint::pending_fingerprint(unsigned long long *accumulator,
                                         std::size_t bytes,
                                         cudaStream_t stream)
    : accumulator_(accumulator), bytes_(bytes), stream_(stream) {}

pending_fingerprint::pending_fingerprint(pending_fingerprint &&other) noexcept
    : accumulator_(std::exchange(other.accumulator_, nullptr)),
      bytes_(other.bytes_), stream_(other.stream_) {}

pending_fingerprint::~pending_fingerprint() {
  if (accumulator_ != nullptr)
    cudaFreeAsync(accumulator_, stream_);
}

std::uint64_t pending_fingerprint::get() {
  TORCHALIAS_CHECK(accumulator_ != nullptr,
                   "pending_fingerprint::get() called twice");
  unsigned long long sum = 0;
  TORCHALIAS_CUDA_CHECK(cudaMemcpyAsync(&sum, accumulator_, sizeof sum,
                                        cudaMemcpyDeviceToHost, stream_));
  TORCHALIAS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  TORCHALIAS_CUDA_CHECK(cudaFreeAsync(std::exchange(accumulator_, nullptr),
                                      stream_));
  return finalise(sum, bytes_);
}

pending_fingerprint fingerprint_async(const void *device_data,
                                      std::size_t bytes, cudaStream_t stream) {
  unsigned long long *accumulator = nullptr;
  TORCHALIAS_CUDA_CHECK(
      cudaMallocAsync(reinterpret_cast<void **>(&accumulator),
                      sizeof *accumulator, stream));
  pending_fingerprint pending(accumulator, bytes, stream);
  TORCHALIAS_CUDA_CHECK(
      cudaMemsetAsync(accumulator, 0, sizeof *accumulator, stream));
  if (bytes == 0)
    return pending;
  const int limit = grid_limit();
  const auto *data = static_cast<const unsigned char *>(device_data);
  std::size_t first_word = 0;
  if (reinterpret_cast<std::uintptr_t>(data) % alignof(ulonglong2) == 0) {
    const std::size_t pair_count = bytes / 16;
    if (pair_count > 0)
      fingerprint_aligned<<<blocks_for(pair_count, limit), threads_per_block,
                            0, stream>>>(
          reinterpret_cast<const ulonglong2 *>(data), pair_count, accumulator);
    first_word = 2 * pair_count;
  }
  const std::size_t remaining_words = (bytes + 7) / 8 - first_word;
  if (remaining_words > 0)
    fingerprint_words<<<blocks_for(remaining_words, limit), threads_per_block,
                        0, stream>>>(data, bytes, first_word, accumulator);
  TORCHALIAS_CUDA_CHECK(cudaGetLastError());
  return pending;
}

std::uint64_t fingerprint(const void *device_data, std::size_t bytes,
                          cudaStream_t stream) {
  return fingerprint_async(device_data, bytes, stream).get();
}

std::uint64_t fingerprint_reference(const void *host_data, std::size_t bytes) {
  const auto *data = static_cast<const unsigned char *>(host_data);
  std::uint64_t sum = 0;
  for (std::size_t w = 0; 8 * w < bytes; ++w)
    sum += mix_word(load_word(data + 8 * w, bytes - 8 * w), w);
  return finalise(sum, bytes);
}

} // namespace torchalias::cuda
