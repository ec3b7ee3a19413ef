// The libtorch behaviours that libtorch-from-blob-escape states, checked
// against the library: from_blob wraps memory without copying it, so a tensor
// over a buffer the producer refills shows the refill; clone(), copy_() into
// other storage and a copy to another device do not; to() onto the device
// the tensor is already on returns the tensor itself (Note [Device copies]).

#include <torch/torch.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace {

// The shape the check models (Note [Blob producers]): a member buffer
// refilled on each call and wrapped without a copy.
class Producer {
public:
  torch::Tensor next() {
    ++count_;
    std::fill(buf_.begin(), buf_.end(), static_cast<float>(count_));
    return torch::from_blob(buf_.data(), {4});
  }

private:
  int count_ = 0;
  std::vector<float> buf_ = std::vector<float>(4);
};

TEST(FromBlobFacts, DoesNotCopyTheBuffer) {
  std::vector<float> buf(4, 1.0f);
  torch::Tensor t = torch::from_blob(buf.data(), {4});
  EXPECT_EQ(t.data_ptr<float>(), buf.data());
  buf[2] = 7.0f;
  EXPECT_EQ(t[2].item<float>(), 7.0f);
}

TEST(FromBlobFacts, CloneOwnsACopy) {
  std::vector<float> buf(4, 1.0f);
  torch::Tensor t = torch::from_blob(buf.data(), {4}).clone();
  EXPECT_NE(t.data_ptr<float>(), buf.data());
  buf[2] = 7.0f;
  EXPECT_EQ(t[2].item<float>(), 1.0f);
}

TEST(FromBlobFacts, EveryKeptResultShowsTheLastFill) {
  Producer producer;
  std::vector<torch::Tensor> kept;
  for (int i = 0; i < 3; ++i)
    kept.push_back(producer.next());
  for (const torch::Tensor &t : kept)
    EXPECT_TRUE(t.eq(3.0f).all().item<bool>());
  EXPECT_EQ(kept[0].data_ptr(), kept[2].data_ptr());
}

TEST(FromBlobFacts, AnEarlierResultSeesALaterCall) {
  Producer producer;
  torch::Tensor first = producer.next();
  torch::Tensor second = producer.next();
  EXPECT_TRUE(first.equal(second));
  EXPECT_EQ(first[0].item<float>(), 2.0f);
}

TEST(FromBlobFacts, ClonedOrCopiedResultsKeepTheirFill) {
  Producer producer;
  torch::Tensor storage = torch::zeros({2, 4});
  torch::Tensor cloned = producer.next().clone();
  storage[1].copy_(producer.next());
  producer.next();
  EXPECT_TRUE(cloned.eq(1.0f).all().item<bool>());
  EXPECT_TRUE(storage[1].eq(2.0f).all().item<bool>());
}

TEST(FromBlobFacts, ToTheSameDeviceReturnsTheTensorItself) {
  Producer producer;
  torch::Tensor t = producer.next();
  torch::Tensor same = t.to(torch::kCPU);
  EXPECT_TRUE(same.is_same(t));
  torch::Tensor viaDevice = t.to(torch::Device(torch::kCPU));
  EXPECT_TRUE(viaDevice.is_same(t));
  producer.next();
  EXPECT_EQ(same[0].item<float>(), 2.0f);
}

// Note [Members that wrap a member]: a container that grows past its
// capacity moves its elements to new memory, and a from_blob tensor made
// before keeps pointing at the old.
TEST(FromBlobFacts, AGrowingVectorLeavesTheTensorBehind) {
  std::vector<float> samples(4, 1.0f);
  samples.shrink_to_fit();
  torch::Tensor window = torch::from_blob(samples.data(), {4});
  const void *wrapped = window.data_ptr();
  samples.push_back(2.0f);
  EXPECT_NE(static_cast<const void *>(samples.data()), wrapped);
  EXPECT_EQ(window.data_ptr(), wrapped);
}

TEST(FromBlobFacts, ToAnotherDeviceCopies) {
  if (!torch::cuda::is_available())
    GTEST_SKIP() << "no CUDA device";
  Producer producer;
  torch::Tensor t = producer.next();
  torch::Tensor moved = t.to(torch::kCUDA);
  producer.next();
  EXPECT_EQ(moved[0].item<float>(), 1.0f);
}

} // namespace
