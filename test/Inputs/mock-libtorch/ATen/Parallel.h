// Mock of <ATen/Parallel.h> for the lit tests; see ATen/ATen.h for the rules.
#pragma once

#include <ATen/ATen.h>

#include <functional>

namespace at {
template <class F>
inline void parallel_for(const int64_t begin, const int64_t end,
                         const int64_t grain_size, const F &f) {
  f(begin, end);
}
template <class scalar_t, class F, class SF>
inline scalar_t parallel_reduce(const int64_t begin, const int64_t end,
                                const int64_t grain_size, const scalar_t ident,
                                const F &f, const SF &sf) {
  return sf(ident, f(begin, end, ident));
}
void launch(std::function<void()> func);
} // namespace at
