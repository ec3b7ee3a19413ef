// torchalias/overlap.h: which tensors in a set alias each other, and how.
//
//   find_overlaps(tensors)  every aliasing pair, classified by overlap_kind
//   memory_overlap(a, b)    the same answer for one pair, in constant time
//   byte_span(t)            the bytes of its storage that a tensor can reach
//
// The answer comes from storage identity and byte ranges alone, in
// O(n log n + k) time for n tensors and k reported pairs; see
// Note [Overlap sweep] in overlap.cpp. Undefined tensors, tensors without
// storage (sparse, mkldnn) and tensors with no elements alias nothing.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Optional.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace torchalias {

enum class overlap_kind {
  same_handle,     // one TensorImpl reached through two handles
  full_overlap,    // one tensor's byte span contains the other's
  partial_overlap, // the spans meet, neither contains the other
  disjoint_views,  // one storage, but no byte can be reached by both
};

const char *to_string(overlap_kind kind);

struct tensor_overlap {
  std::size_t first;  // index into the input, first < second
  std::size_t second;
  overlap_kind kind;
};

struct byte_span {
  const void *storage = nullptr; // identity of the StorageImpl
  std::uintptr_t begin = 0;      // first byte an element can occupy
  std::uintptr_t end = 0;        // one past the last
};

// A tensor with no storage or no elements gives an empty span.
byte_span span_of(const at::Tensor &tensor);

struct overlap_options {
  // m views of one storage that do not meet make m(m-1)/2 disjoint pairs;
  // leave them out when only real overlaps matter.
  bool include_disjoint_views = true;
};

// Pairs come sorted by (first, second).
std::vector<tensor_overlap> find_overlaps(at::TensorList tensors,
                                          overlap_options options = {});

// How `a` and `b` share memory: the kind find_overlaps({a, b}) reports for
// the pair, disjoint_views included, or nullopt when it reports none. With
// `across_storages`, two storages over one address range of one device
// (two from_blob() calls on one buffer) count as one storage too.
c10::optional<overlap_kind> memory_overlap(const at::Tensor &a,
                                           const at::Tensor &b,
                                           bool across_storages = false);

} // namespace torchalias
