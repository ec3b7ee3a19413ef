// CPU fingerprints: XXH3 over exactly the tensor's own bytes.
#include "fake_device.h"

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
  EXPECT_FALSE(can_fingerprint(torch::empty({4}, torch::kMeta)));
  EXPECT_THROW(fingerprint(torch::empty({4}, torch::kMeta)), error);
  auto sparse = torch::eye(3).to_sparse();
  EXPECT_FALSE(can_fingerprint(sparse));
  EXPECT_THROW(fingerprint(sparse), error);
  EXPECT_TRUE(can_fingerprint(torch::ones({2})));
}

TEST(DeviceFingerprinter, DispatchesNonCpuTensorsToTheRegisteredOne) {
  auto meta = torch::empty({4}, torch::kMeta);
  {
    test::scoped_device_fingerprinter fake(c10::DeviceType::Meta,
                                           test::fake_meta_fingerprint);
    EXPECT_TRUE(can_fingerprint(meta));
    const int before = test::fake_fingerprints_taken.load();
    const std::uint64_t first = fingerprint(meta);
    EXPECT_EQ(test::fake_fingerprints_taken.load(), before + 1);
    EXPECT_EQ(fingerprint(meta), first);
    meta.add_(1); // bumps the version counter, which the fake hashes
    EXPECT_NE(fingerprint(meta), first);
    // Empty tensors never reach a fingerprinter.
    EXPECT_EQ(fingerprint(torch::empty({0}, torch::kMeta)),
              XXH3_64bits(nullptr, 0));
    // The CPU keeps its own fingerprint.
    auto cpu = torch::randn({8});
    EXPECT_EQ(fingerprint(cpu), xxh3_of_dense(cpu));
  }
  EXPECT_FALSE(can_fingerprint(meta)) << "unregistered again";
  EXPECT_THROW(fingerprint(meta), error);
}

TEST(DeviceFingerprinter, RegistrationReturnsThePreviousOne) {
  EXPECT_EQ(register_device_fingerprinter(c10::DeviceType::Meta,
                                          test::fake_meta_fingerprint),
            nullptr);
  EXPECT_EQ(register_device_fingerprinter(c10::DeviceType::Meta, nullptr),
            test::fake_meta_fingerprint);
}

TEST(DeviceFingerprinter, TheCpuCannotBeReplaced) {
  EXPECT_THROW(register_device_fingerprinter(c10::DeviceType::CPU,
                                             test::fake_meta_fingerprint),
               error);
  EXPECT_THROW(register_device_fingerprinter(
                   static_cast<c10::DeviceType>(
                       c10::COMPILE_TIME_MAX_DEVICE_TYPES),
                   test::fake_meta_fingerprint),
               error);
}

} // namespace
} // namespace torchalias
