// CPU fingerprints: XXH3 over exactly the tensor's own bytes.
#include "torchalias/error.h"
#include "torchalias/fingerprint.h"

#include <gtest/gtest.h>
#include <torch/torch.h>
#include <xxhash.h>

namespace torchalias {
namespace {

std::uint64_t xxh3_of_dense(const at::Tensor &t) {
  return XXH3_64bits(t.data_ptr(), t.numel() * t.element_size());
}

TEST(Fingerprint, IsXxh3OfAContiguousTensorsBytes) {
  auto t = torch::randn({17, 33});
  EXPECT_EQ(fingerprint(t), xxh3_of_dense(t));
  EXPECT_EQ(fingerprint_bytes(t.data_ptr(), 17 * 33 * 4), xxh3_of_dense(t));
}

TEST(Fingerprint, ChangesWhenOneElementChanges) {
  auto t = torch::randn({64, 64});
  const auto before = fingerprint(t);
  t.index_put_({63, 63}, t.index({63, 63}) + 1);
  EXPECT_NE(fingerprint(t), before);
}

TEST(Fingerprint, SliceCoversItsRowsAndNotTheGaps) {
  auto x = torch::randn({8, 10});
  auto middle = x.slice(1, 2, 6);
  EXPECT_EQ(fingerprint(middle), xxh3_of_dense(middle.contiguous()));
  const auto before = fingerprint(middle);
  x.index_put_({3, 0}, 42.0); // in a gap between the slice's rows
  x.index_put_({0, 9}, 42.0);
  EXPECT_EQ(fingerprint(middle), before);
  x.index_put_({3, 2}, 42.0); // inside
  EXPECT_NE(fingerprint(middle), before);
}

TEST(Fingerprint, StepSliceHashesEachElement) {
  auto x = torch::arange(20, torch::kInt);
  auto even = x.slice(0, 0, 20, 2);
  EXPECT_EQ(fingerprint(even), xxh3_of_dense(even.contiguous()));
  const auto before = fingerprint(even);
  x.index_put_({3}, 99);
  EXPECT_EQ(fingerprint(even), before);
}

TEST(Fingerprint, FollowsMemoryNotLogicalOrder) {
  auto x = torch::randn({6, 7});
  EXPECT_EQ(fingerprint(x.t()), fingerprint(x));
  auto image = torch::randn({2, 3, 4, 5})
                   .contiguous(at::MemoryFormat::ChannelsLast);
  EXPECT_EQ(fingerprint(image), xxh3_of_dense(image));
  auto row = torch::randn({9});
  EXPECT_EQ(fingerprint(row.expand({5, 9})), fingerprint(row));
}

TEST(Fingerprint, EmptyAndUndefinedHashZeroBytes) {
  EXPECT_EQ(fingerprint(torch::empty({0, 3})), XXH3_64bits(nullptr, 0));
  EXPECT_EQ(fingerprint(at::Tensor()), XXH3_64bits(nullptr, 0));
}

TEST(Fingerprint, RejectsNonCpuAndNonStridedTensors) {
  EXPECT_THROW(fingerprint(torch::empty({4}, torch::kMeta)), error);
  auto sparse = torch::eye(3).to_sparse();
  EXPECT_THROW(fingerprint(sparse), error);
}

} // namespace
} // namespace torchalias
