// A device fingerprinter for tests: CPU-only libtorch has no device with
// memory besides the CPU, but it creates meta tensors, which have shapes,
// strides and version counters and no bytes. The fake hashes the version
// counter, which every in-place write bumps, so a worker that writes a meta
// input changes its "fingerprint" the way a CUDA kernel's write would.
#pragma once

#include "torchalias/fingerprint.h"

#include <atomic>
#include <cstdint>

namespace torchalias::test {

inline std::atomic<int> fake_fingerprints_taken{0};

inline std::uint64_t fake_meta_fingerprint(const at::Tensor &tensor) {
  fake_fingerprints_taken.fetch_add(1);
  return 0x5eed0000u + static_cast<std::uint64_t>(tensor._version());
}

// Registers `fn` for `type` while in scope, then restores the previous one.
class scoped_device_fingerprinter {
public:
  scoped_device_fingerprinter(c10::DeviceType type, device_fingerprinter fn)
      : type_(type), previous_(register_device_fingerprinter(type, fn)) {}
  ~scoped_device_fingerprinter() {
    register_device_fingerprinter(type_, previous_);
  }
  scoped_device_fingerprinter(const scoped_device_fingerprinter &) = delete;
  scoped_device_fingerprinter &
  operator=(const scoped_device_fingerprinter &) = delete;

private:
  c10::DeviceType type_;
  device_fingerprinter previous_;
};

} // namespace torchalias::test
