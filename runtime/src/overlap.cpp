#include "torchalias/overlap.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <tuple>
#include <utility>

namespace torchalias {

const char *to_string(overlap_kind kind) {
  switch (kind) {
  case overlap_kind::same_handle:
    return "same-handle";
  case overlap_kind::full_overlap:
    return "full-overlap";
  case overlap_kind::partial_overlap:
    return "partial-overlap";
  case overlap_kind::disjoint_views:
    return "disjoint-views";
  }
  return "?";
}

byte_span span_of(const at::Tensor &tensor) {
  if (!tensor.defined() || !tensor.has_storage() || tensor.numel() == 0)
    return {};
  std::int64_t last_element = 0;
  for (std::int64_t dim = 0; dim < tensor.dim(); ++dim)
    last_element += (tensor.size(dim) - 1) * tensor.stride(dim);
  const auto item = static_cast<std::uintptr_t>(tensor.element_size());
  const auto begin = reinterpret_cast<std::uintptr_t>(tensor.data_ptr());
  return {tensor.storage().unsafeGetStorageImpl(), begin,
          begin + static_cast<std::uintptr_t>(last_element) * item + item};
}

namespace {

struct span_entry {
  byte_span span;
  std::size_t index;
  const at::Tensor *tensor;
};

// The gcd of the byte strides of every dimension that moves, in both
// tensors. Every element of either starts at its base address plus a
// multiple of it. Zero when neither tensor has such a dimension.
std::uintptr_t common_byte_stride(const at::Tensor &a, const at::Tensor &b) {
  std::uintptr_t step = 0;
  for (const at::Tensor *t : {&a, &b}) {
    for (std::int64_t dim = 0; dim < t->dim(); ++dim) {
      if (t->size(dim) > 1)
        step = std::gcd(step, static_cast<std::uintptr_t>(t->stride(dim) *
                                                          t->element_size()));
    }
  }
  return step;
}

// Interleaved views, such as two columns of one matrix, have spans that
// meet while no byte is shared. When the two base addresses differ by an
// amount that no combination of strides can make up within an element's
// width, the elements of one always fall between those of the other.
bool provably_interleaved(const span_entry &a, const span_entry &b) {
  const std::uintptr_t step = common_byte_stride(*a.tensor, *b.tensor);
  if (step == 0)
    return false;
  const auto width_a = static_cast<std::uintptr_t>(a.tensor->element_size());
  const auto width_b = static_cast<std::uintptr_t>(b.tensor->element_size());
  // a starts no later than b: b's elements sit `offset` past a multiple of
  // `step` from a's.
  const std::uintptr_t offset = (b.span.begin - a.span.begin) % step;
  return offset >= width_a && step - offset >= width_b;
}

overlap_kind classify_meeting(const span_entry &earlier,
                              const span_entry &later) {
  if (earlier.tensor->unsafeGetTensorImpl() ==
      later.tensor->unsafeGetTensorImpl())
    return overlap_kind::same_handle;
  if (provably_interleaved(earlier, later))
    return overlap_kind::disjoint_views;
  const bool later_inside = later.span.end <= earlier.span.end;
  const bool earlier_inside = earlier.span.begin == later.span.begin;
  return later_inside || earlier_inside ? overlap_kind::full_overlap
                                        : overlap_kind::partial_overlap;
}

tensor_overlap make_pair(std::size_t a, std::size_t b, overlap_kind kind) {
  return {std::min(a, b), std::max(a, b), kind};
}

// Note [Overlap sweep]
// ~~~~~~~~~~~~~~~~~~~~
// Entries are sorted by (storage, begin). Within one storage a sweep keeps
// the spans that are still open (end > current begin) in a min-heap by end.
// When a span starts, every span that ended before it moves to `closed`:
// those pairs are disjoint views and are reported without a comparison.
// Every span still open meets the new one, so each comparison made is a
// reported pair, or a disjoint one found by the interleaving test. The cost
// is the sort, the heap, and one step per pair reported: O(n log n + k).
void sweep_storage(const std::vector<span_entry> &entries, std::size_t first,
                   std::size_t last, bool keep_closed,
                   std::vector<tensor_overlap> &out) {
  using open_span = std::pair<std::uintptr_t, std::size_t>; // (end, entry)
  std::vector<open_span> open; // a min-heap by end, iterated in place
  const auto ends_later = std::greater<open_span>();
  std::vector<std::size_t> closed;
  for (std::size_t i = first; i < last; ++i) {
    const span_entry &current = entries[i];
    while (!open.empty() && open.front().first <= current.span.begin) {
      if (keep_closed)
        closed.push_back(open.front().second);
      std::pop_heap(open.begin(), open.end(), ends_later);
      open.pop_back();
    }
    for (std::size_t done : closed)
      out.push_back(make_pair(entries[done].index, current.index,
                              overlap_kind::disjoint_views));
    for (const open_span &still_open : open) {
      const span_entry &earlier = entries[still_open.second];
      out.push_back(make_pair(earlier.index, current.index,
                              classify_meeting(earlier, current)));
    }
    open.emplace_back(current.span.end, i);
    std::push_heap(open.begin(), open.end(), ends_later);
  }
}

std::uintptr_t storage_key(const span_entry &entry) {
  return reinterpret_cast<std::uintptr_t>(entry.span.storage);
}

// Whether two spans of different storages cover one address range: only
// real addresses on one device can be compared (a meta tensor has none).
bool same_memory_space(const at::Tensor &a, const byte_span &span_a,
                       const at::Tensor &b, const byte_span &span_b) {
  return span_a.begin != 0 && span_b.begin != 0 && a.device() == b.device();
}

} // namespace

c10::optional<overlap_kind> memory_overlap(const at::Tensor &a,
                                           const at::Tensor &b,
                                           bool across_storages) {
  const byte_span span_a = span_of(a), span_b = span_of(b);
  if (span_a.storage == nullptr || span_b.storage == nullptr)
    return c10::nullopt;
  if (span_a.storage != span_b.storage &&
      !(across_storages && same_memory_space(a, span_a, b, span_b)))
    return c10::nullopt;
  span_entry first{span_a, 0, &a}, second{span_b, 1, &b};
  if (second.span.begin < first.span.begin)
    std::swap(first, second);
  if (first.span.end <= second.span.begin) {
    if (span_a.storage != span_b.storage)
      return c10::nullopt; // apart, and in different storages: unrelated
    return overlap_kind::disjoint_views;
  }
  return classify_meeting(first, second);
}

std::vector<tensor_overlap> find_overlaps(at::TensorList tensors,
                                          overlap_options options) {
  std::vector<span_entry> entries;
  entries.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    byte_span span = span_of(tensors[i]);
    if (span.storage != nullptr)
      entries.push_back({span, i, &tensors[i]});
  }
  std::sort(entries.begin(), entries.end(),
            [](const span_entry &a, const span_entry &b) {
              return std::make_tuple(storage_key(a), a.span.begin, a.index) <
                     std::make_tuple(storage_key(b), b.span.begin, b.index);
            });
  std::vector<tensor_overlap> out;
  for (std::size_t first = 0; first < entries.size();) {
    std::size_t last = first + 1;
    while (last < entries.size() &&
           entries[last].span.storage == entries[first].span.storage)
      ++last;
    sweep_storage(entries, first, last, options.include_disjoint_views, out);
    first = last;
  }
  std::sort(out.begin(), out.end(),
            [](const tensor_overlap &a, const tensor_overlap &b) {
              return std::tie(a.first, a.second) < std::tie(b.first, b.second);
            });
  return out;
}

} // namespace torchalias
