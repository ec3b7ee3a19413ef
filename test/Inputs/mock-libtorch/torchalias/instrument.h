// Mock of the runtime's <torchalias/instrument.h> (runtime/include/
// torchalias/instrument.h) for the lit tests: the same macros, each a
// passthrough of its expression, so that an instrumented file can be
// compiled against the mock headers.
#pragma once

#include <torch/torch.h>

#include <utility>

namespace torchalias::mock {
template <class T> T pass(T &&value) { return std::forward<T>(value); }
struct guard {
  template <class... Tensors> explicit guard(const Tensors &...) {}
};
} // namespace torchalias::mock

#define TORCHALIAS_AT_VIEW_WRITE(id, ...) (::torchalias::mock::pass(__VA_ARGS__))
#define TORCHALIAS_AT_OVERLAP_DST(id, ...) (::torchalias::mock::pass(__VA_ARGS__))
#define TORCHALIAS_AT_OVERLAP_OPERAND(id, ...) (::torchalias::mock::pass(__VA_ARGS__))
#define TORCHALIAS_AT_OVERLAP_OPERAND_OF(id, dst, ...) (::torchalias::mock::pass(__VA_ARGS__))
#define TORCHALIAS_AT_DETACHED_SOURCE(id, ...) (::torchalias::mock::pass(__VA_ARGS__))
#define TORCHALIAS_AT_FROM_BLOB(id, ...) (::torchalias::mock::pass(__VA_ARGS__))
#define TORCHALIAS_AT_PARAMETERS(id, ...) (::torchalias::mock::pass(__VA_ARGS__))
#define TORCHALIAS_AT_WORKER(id, guard_name, ...)                              \
  ::torchalias::mock::guard guard_name(__VA_ARGS__)
