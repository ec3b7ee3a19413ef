// find_overlaps(): kinds, order, an element-level oracle and scale.
#include "torchalias/overlap.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <random>
#include <set>

namespace torchalias {
namespace {

// The pairs as (first, second, kind) strings, for readable failures.
std::vector<std::string> describe(const std::vector<tensor_overlap> &pairs) {
  std::vector<std::string> out;
  for (const tensor_overlap &p : pairs)
    out.push_back(std::to_string(p.first) + "-" + std::to_string(p.second) +
                  ":" + to_string(p.kind));
  return out;
}

using strings = std::vector<std::string>;

TEST(SpanOf, CoversFirstToLastElementBytes) {
  auto x = torch::zeros({4, 5}, torch::kDouble);
  const auto base = reinterpret_cast<std::uintptr_t>(x.data_ptr());
  const byte_span column = span_of(x.select(1, 2));
  EXPECT_EQ(column.storage, x.storage().unsafeGetStorageImpl());
  EXPECT_EQ(column.begin, base + 2 * 8);
  EXPECT_EQ(column.end, base + (3 * 5 + 2 + 1) * 8);
  EXPECT_EQ(span_of(x.narrow(0, 1, 0)).storage, nullptr);
  EXPECT_EQ(span_of(at::Tensor()).storage, nullptr);
}

TEST(FindOverlaps, SameHandle) {
  auto a = torch::ones({4});
  at::Tensor b = a; // shares the TensorImpl
  EXPECT_EQ(describe(find_overlaps({a, b})), strings{"0-1:same-handle"});
}

TEST(FindOverlaps, FullOverlapForEqualOrContainedSpans) {
  auto x = torch::zeros({4, 4});
  EXPECT_EQ(describe(find_overlaps({x, x.view({16})})),
            strings{"0-1:full-overlap"});
  EXPECT_EQ(describe(find_overlaps({x[2], x})), strings{"0-1:full-overlap"});
  auto row = torch::arange(4.0);
  EXPECT_EQ(describe(find_overlaps({row.expand({3, 4}), row})),
            strings{"0-1:full-overlap"});
}

TEST(FindOverlaps, PartialOverlap) {
  auto x = torch::zeros({10});
  EXPECT_EQ(describe(find_overlaps({x.narrow(0, 4, 6), x.narrow(0, 0, 6)})),
            strings{"0-1:partial-overlap"});
}

TEST(FindOverlaps, DisjointViewsOfOneStorage) {
  auto x = torch::zeros({10});
  auto chunks = x.chunk(3);
  EXPECT_EQ(describe(find_overlaps(chunks)),
            (strings{"0-1:disjoint-views", "0-2:disjoint-views",
                     "1-2:disjoint-views"}));
}

TEST(FindOverlaps, InterleavedColumnsAreDisjoint) {
  auto m = torch::zeros({5, 4});
  EXPECT_EQ(describe(find_overlaps({m.select(1, 0), m.select(1, 1)})),
            strings{"0-1:disjoint-views"});
  auto even = m.slice(1, 0, 4, 2), odd = m.slice(1, 1, 4, 2);
  EXPECT_EQ(describe(find_overlaps({even, odd})),
            strings{"0-1:disjoint-views"});
  // A row and a column share one element: never disjoint.
  auto pairs = find_overlaps({m.select(0, 0), m.select(1, 0)});
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_NE(pairs[0].kind, overlap_kind::disjoint_views);
}

TEST(FindOverlaps, UnrelatedEmptyAndUndefinedTensorsAliasNothing) {
  auto x = torch::zeros({4});
  EXPECT_TRUE(find_overlaps({x, torch::zeros({4}), at::Tensor(),
                             x.narrow(0, 0, 0), torch::ones({3})})
                  .empty());
}

TEST(FindOverlaps, IndicesReferToTheInputAndComeSorted) {
  auto a = torch::zeros({8}), b = torch::zeros({8});
  auto pairs = find_overlaps({b.narrow(0, 0, 5), a, torch::ones({2}),
                              a.narrow(0, 2, 2), b.narrow(0, 4, 4)});
  EXPECT_EQ(describe(pairs),
            (strings{"0-4:partial-overlap", "1-3:full-overlap"}));
}

// Every byte each element of `t` occupies.
std::set<std::uintptr_t> bytes_of(const at::Tensor &t) {
  std::set<std::uintptr_t> bytes;
  auto flat_offsets = torch::zeros(t.sizes(), torch::kLong);
  for (int64_t d = 0; d < t.dim(); ++d) {
    std::vector<int64_t> shape(t.dim(), 1);
    shape[d] = t.size(d);
    flat_offsets += torch::arange(t.size(d), torch::kLong).view(shape) *
                    t.stride(d);
  }
  const auto base = reinterpret_cast<std::uintptr_t>(t.data_ptr());
  auto offsets = flat_offsets.flatten();
  for (int64_t i = 0; i < offsets.numel(); ++i)
    for (int64_t b = 0; b < t.element_size(); ++b)
      bytes.insert(base + offsets[i].item<int64_t>() * t.element_size() + b);
  return bytes;
}

bool share_a_byte(const at::Tensor &a, const at::Tensor &b) {
  auto x = bytes_of(a), y = bytes_of(b);
  for (auto byte : x)
    if (y.count(byte))
      return true;
  return false;
}

// Random contiguous and strided views of two buffers against the oracle:
// overlapping pairs must never be called disjoint, and for contiguous
// views (spans are exact there) the answer must match exactly.
TEST(FindOverlaps, AgreesWithAnElementOracle) {
  std::mt19937 random(1234);
  std::vector<at::Tensor> buffers{torch::zeros({64}), torch::zeros({8, 8})};
  std::vector<at::Tensor> views;
  std::vector<bool> exact;
  for (int i = 0; i < 60; ++i) {
    const at::Tensor &flat = buffers[random() % 2].view({64});
    const int64_t start = random() % 60, length = 1 + random() % (64 - start);
    const int64_t step = 1 + random() % 3;
    views.push_back(flat.slice(0, start, start + length, step));
    exact.push_back(step == 1 || length == 1);
  }
  std::map<std::pair<std::size_t, std::size_t>, overlap_kind> found;
  for (const tensor_overlap &p : find_overlaps(views))
    found[{p.first, p.second}] = p.kind;
  for (std::size_t i = 0; i < views.size(); ++i) {
    for (std::size_t j = i + 1; j < views.size(); ++j) {
      const bool same_storage = views[i].is_alias_of(views[j]);
      const bool shared = same_storage && share_a_byte(views[i], views[j]);
      auto it = found.find({i, j});
      ASSERT_EQ(it != found.end(), same_storage) << i << "," << j;
      if (shared)
        EXPECT_NE(it->second, overlap_kind::disjoint_views) << i << "," << j;
      else if (same_storage && exact[i] && exact[j])
        EXPECT_EQ(it->second, overlap_kind::disjoint_views) << i << "," << j;
    }
  }
}

TEST(FindOverlaps, DisjointViewsCanBeLeftOut) {
  auto x = torch::zeros({10});
  auto pairs = find_overlaps({x.narrow(0, 0, 3), x.narrow(0, 5, 5),
                              x.narrow(0, 2, 2)},
                             {/*include_disjoint_views=*/false});
  EXPECT_EQ(describe(pairs), strings{"0-2:partial-overlap"});
}

// 200,000 tensors, half of them views of one pool: a pairwise scan would
// make 2e10 comparisons.
TEST(FindOverlaps, ScalesToManyTensors) {
  constexpr int64_t count = 200000;
  auto pool = torch::zeros({count});
  std::vector<at::Tensor> tensors;
  tensors.reserve(count + 1);
  for (int64_t i = 0; i < count; ++i)
    tensors.push_back(i % 2 ? torch::empty({1}) : pool.narrow(0, i, 1));
  tensors.push_back(pool.slice(0, 10, 15, 2)); // meets views 10, 12, 14
  const auto start = std::chrono::steady_clock::now();
  auto pairs = find_overlaps(tensors, {/*include_disjoint_views=*/false});
  const auto seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  EXPECT_EQ(describe(pairs),
            (strings{"10-200000:full-overlap", "12-200000:full-overlap",
                     "14-200000:full-overlap"}));
  EXPECT_LT(seconds, 30.0);
}

} // namespace
} // namespace torchalias
