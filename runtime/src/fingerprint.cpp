#include "torchalias/fingerprint.h"

#include "torchalias/error.h"

#include <xxhash.h>

#include <algorithm>
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

} // namespace

std::uint64_t fingerprint(const at::Tensor &tensor) {
  if (!tensor.defined() || tensor.numel() == 0)
    return fingerprint_bytes(nullptr, 0);
  TORCHALIAS_CHECK(tensor.device().is_cpu() && tensor.layout() == at::kStrided,
                   "fingerprint() needs a strided CPU tensor, got one on ",
                   tensor.device(), " with layout ", tensor.layout(),
                   "; for CUDA memory use torchalias/cuda/fingerprint.h");
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

} // namespace torchalias
