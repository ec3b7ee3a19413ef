// The CUDA fingerprint. Host-side properties run everywhere; device tests
// skip, and say so, when no GPU is present.
#include "torchalias/cuda/fingerprint.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace torchalias::cuda {
namespace {

std::vector<unsigned char> random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<unsigned char> bytes(size);
  for (auto &byte : bytes)
    byte = static_cast<unsigned char>(random());
  return bytes;
}

TEST(CudaFingerprintReference, SeesEveryByteItsPositionAndTheLength) {
  auto bytes = random_bytes(4096, 1);
  const auto base = fingerprint_reference(bytes.data(), bytes.size());
  EXPECT_EQ(fingerprint_reference(bytes.data(), bytes.size()), base);
  for (std::size_t at : {0, 7, 8, 2049, 4095}) {
    auto changed = bytes;
    changed[at] ^= 0x10;
    EXPECT_NE(fingerprint_reference(changed.data(), changed.size()), base)
        << "byte " << at;
  }
  auto swapped = bytes;
  std::swap_ranges(swapped.begin(), swapped.begin() + 8, swapped.begin() + 8);
  if (!std::equal(bytes.begin(), bytes.begin() + 8, bytes.begin() + 8))
    EXPECT_NE(fingerprint_reference(swapped.data(), swapped.size()), base);
  bytes.push_back(0); // zero padding must not hide a longer input
  EXPECT_NE(fingerprint_reference(bytes.data(), bytes.size()), base);
}

class CudaFingerprint : public ::testing::Test {
protected:
  void SetUp() override {
    if (!device_available())
      GTEST_SKIP() << "no CUDA device: device fingerprint tests skipped";
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
  }
  void TearDown() override {
    if (stream_ != nullptr)
      cudaStreamDestroy(stream_);
  }

  // Copies `bytes` to the device at `offset` bytes past a 256-byte
  // aligned allocation, and returns the device pointer.
  const void *upload(const std::vector<unsigned char> &bytes,
                     std::size_t offset) {
    void *device = nullptr;
    EXPECT_EQ(cudaMalloc(&device, bytes.size() + offset), cudaSuccess);
    allocations_.emplace_back(device, [](void *p) { cudaFree(p); });
    auto *target = static_cast<unsigned char *>(device) + offset;
    EXPECT_EQ(cudaMemcpy(target, bytes.data(), bytes.size(),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    return target;
  }

  cudaStream_t stream_ = nullptr;
  std::vector<std::unique_ptr<void, void (*)(void *)>> allocations_;
};

TEST_F(CudaFingerprint, MatchesTheHostReferenceForAnySizeAndAlignment) {
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{7},
                           std::size_t{16}, std::size_t{33},
                           std::size_t{(1 << 20) + 3},
                           std::size_t{(64 << 20) + 8}}) {
    for (std::size_t offset : {0, 1, 8, 13}) {
      auto bytes = random_bytes(size, static_cast<unsigned>(size + offset));
      const void *device = upload(bytes, offset);
      EXPECT_EQ(fingerprint(device, size, stream_),
                fingerprint_reference(bytes.data(), size))
          << "size " << size << " offset " << offset;
    }
  }
}

TEST_F(CudaFingerprint, DetectsAWriteBetweenTwoFingerprints) {
  auto bytes = random_bytes(1 << 22, 7);
  void *device = const_cast<void *>(upload(bytes, 0));
  auto before = fingerprint_async(device, bytes.size(), stream_);
  ASSERT_EQ(cudaMemsetAsync(static_cast<char *>(device) + 12345, 0xAB, 1,
                            stream_),
            cudaSuccess);
  auto after = fingerprint_async(device, bytes.size(), stream_);
  EXPECT_NE(after.get(), before.get());
}

TEST_F(CudaFingerprint, GetTwiceIsAnError) {
  auto bytes = random_bytes(64, 3);
  auto pending = fingerprint_async(upload(bytes, 0), bytes.size(), stream_);
  pending.get();
  EXPECT_ANY_THROW(pending.get());
}

} // namespace
} // namespace torchalias::cuda
