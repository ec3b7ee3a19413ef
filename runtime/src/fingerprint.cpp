#include "torchalias/fingerprint.h"

#include "torchalias/error.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <vector>

namespace torchalias {

std::uint64_t fingerprint_bytes(const void *data, std::size_t size) {
  return XXH3_64bits(data, size);
}

namespace {

// One dimension of a tensor's memory walk, in bytes.
struct memory_dim {
  std::int64_t size;
  std::int64_t stride;
};

// Note [What a fingerprint covers]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A fingerprint covers the bytes the tensor's elements occupy, visited in
// memory order: dimensions are sorted by stride, stride-0 (expanded) and
// size-1 dimensions are dropped because they revisit no new byte, and
// dimensions that continue each other are merged. A dense tensor, whatever
// its permutation, becomes one run hashed by one XXH3 call; a sliced tensor
// becomes one run per row, fed to XXH3's streaming state; gaps between rows
// belong to other tensors and are not covered. So the fingerprint changes
// exactly when one of the tensor's own bytes changes, and t, t.t() and
// t.expand(...) of one memory have the same fingerprint.
std::vector<memory_dim> memory_walk(const at::Tensor &tensor) {
  std::vector<memory_dim> dims;
  const std::int64_t item = tensor.element_size();
  for (std::int64_t dim = 0; dim < tensor.dim(); ++dim) {
    if (tensor.size(dim) > 1 && tensor.stride(dim) != 0)
      dims.push_back({tensor.size(dim), tensor.stride(dim) * item});
  }
  std::sort(dims.begin(), dims.end(),
            [](const memory_dim &a, const memory_dim &b) {
              return a.stride > b.stride;
            });
  std::vector<memory_dim> merged;
  for (const memory_dim &dim : dims) {
    if (!merged.empty() &&
        merged.back().stride == dim.size * dim.stride) {
      merged.back() = {merged.back().size * dim.size, dim.stride};
    } else {
      merged.push_back(dim);
    }
  }
  return merged;
}

void hash_runs(XXH3_state_t *state, const char *base,
               const std::vector<memory_dim> &outer, std::size_t depth,
               std::size_t run_bytes) {
  if (depth == outer.size()) {
    XXH3_64bits_update(state, base, run_bytes);
    return;
  }
  for (std::int64_t i = 0; i < outer[depth].size; ++i)
    hash_runs(state, base + i * outer[depth].stride, outer, depth + 1,
              run_bytes);
}

struct xxh3_state_deleter {
  void operator()(XXH3_state_t *state) const { XXH3_freeState(state); }
};

// Note [Device fingerprinters]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// This library links only libtorch's CPU parts, so it cannot read device
// memory itself. A library that can registers a function for its device
// type: runtime_cuda registers one for CUDA when it is loaded (see
// cuda/tensor_fingerprint.cpp). The table is an array of atomic function
// pointers, constant-initialised, so registering from another library's
// static initialiser needs no ordering between the two, and a lookup is one
// load. A device fingerprint need not be XXH3 (CUDA's is not); fingerprints
// are compared only between two takes of one tensor, so it must only be
// the same function both times.
using fingerprinter_table =
    std::array<std::atomic<device_fingerprinter>,
               static_cast<std::size_t>(c10::COMPILE_TIME_MAX_DEVICE_TYPES)>;
fingerprinter_table device_fingerprinters{};

device_fingerprinter fingerprinter_for(c10::DeviceType type) {
  const auto index = static_cast<std::size_t>(type);
  if (index >= device_fingerprinters.size())
    return nullptr;
  return device_fingerprinters[index].load(std::memory_order_acquire);
}

std::uint64_t fingerprint_cpu(const at::Tensor &tensor);

} // namespace

device_fingerprinter register_device_fingerprinter(c10::DeviceType type,
                                                   device_fingerprinter fn) {
  const auto index = static_cast<std::size_t>(type);
  TORCHALIAS_CHECK(type != c10::DeviceType::CPU,
                   "register_device_fingerprinter(): the CPU fingerprint is "
                   "built in and cannot be replaced");
  TORCHALIAS_CHECK(index < device_fingerprinters.size(),
                   "register_device_fingerprinter(): device type ",
                   static_cast<int>(index), " is out of range");
  return device_fingerprinters[index].exchange(fn, std::memory_order_acq_rel);
}

bool can_fingerprint(const at::Tensor &tensor) {
  if (!tensor.defined())
    return true;
  if (tensor.layout() != at::kStrided)
    return false;
  return tensor.device().is_cpu() || tensor.numel() == 0 ||
         fingerprinter_for(tensor.device().type()) != nullptr;
}

std::uint64_t fingerprint(const at::Tensor &tensor) {
  if (!tensor.defined() || tensor.numel() == 0)
    return fingerprint_bytes(nullptr, 0);
  TORCHALIAS_CHECK(tensor.layout() == at::kStrided,
                   "fingerprint() needs a strided tensor, got layout ",
                   tensor.layout(), " on ", tensor.device());
  if (tensor.device().is_cpu())
    return fingerprint_cpu(tensor);
  const device_fingerprinter device_fn =
      fingerprinter_for(tensor.device().type());
  TORCHALIAS_CHECK(device_fn != nullptr, "fingerprint(): no fingerprinter is "
                   "registered for ", tensor.device().type(),
                   " tensors; for CUDA link TorchAlias::runtime_cuda (built "
                   "with a CUDA libtorch) or call "
                   "register_device_fingerprinter()");
  return device_fn(tensor);
}

namespace {

std::uint64_t fingerprint_cpu(const at::Tensor &tensor) {
  const auto *base = static_cast<const char *>(tensor.data_ptr());
  std::vector<memory_dim> walk = memory_walk(tensor);
  const std::int64_t item = tensor.element_size();
  // The innermost dimension is one contiguous run when its stride is the
  // element size; otherwise every element is a run of its own.
  std::size_t run_bytes = static_cast<std::size_t>(item);
  if (!walk.empty() && walk.back().stride == item) {
    run_bytes = static_cast<std::size_t>(walk.back().size * item);
    walk.pop_back();
  }
  if (walk.empty())
    return fingerprint_bytes(base, run_bytes);
  std::unique_ptr<XXH3_state_t, xxh3_state_deleter> state(XXH3_createState());
  TORCHALIAS_CHECK(state != nullptr, "out of memory creating an XXH3 state");
  XXH3_64bits_reset(state.get());
  hash_runs(state.get(), base, walk, 0, run_bytes);
  return XXH3_64bits_digest(state.get());
}

} // namespace
} // namespace torchalias
