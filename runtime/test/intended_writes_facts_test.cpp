// The libtorch 1.13.1 behaviours behind the rules that keep legitimate
// write-through quiet (issue #21): which views and may-alias results keep a
// tensor contiguous and so copy nothing (Note [Contiguity of views], Note
// [Layout facts]), that a result copied back lands either way (Note
// [Results copied back]), that different positions of one dimension share no
// memory, and how the frame-stack shift behaves. If an upgrade changes one,
// this fails and the analysis and its docs change with it.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace {

using torch::indexing::None;
using torch::indexing::Slice;

bool sharesStorage(const torch::Tensor &a, const torch::Tensor &b) {
  return a.storage().data() == b.storage().data();
}

// A factory's result is contiguous, and so are the reshaping views of it and
// its views along the first dimension.
TEST(IntendedWritesFacts, FactoriesAndTheirLeadingViewsAreContiguous) {
  std::vector<torch::Tensor> fresh = {
      torch::zeros({2, 3, 4}), torch::empty({2, 3, 4}), torch::ones({2, 3, 4}),
      torch::rand({2, 3, 4}), torch::arange(24).view({2, 3, 4}),
      torch::rand({3, 4}).t().new_zeros({2, 3, 4})};
  for (const torch::Tensor &t : fresh) {
    EXPECT_TRUE(t.is_contiguous());
    for (const torch::Tensor &view :
         {t[1], t.select(0, 1), t.narrow(0, 1, 1), t.slice(0, 0, 1),
          t.view({6, 4}), t.reshape({-1}), t.flatten(1), t.unsqueeze(0),
          t.unsqueeze(0).squeeze(0), t.view_as(t), t.detach()})
      EXPECT_TRUE(view.is_contiguous());
  }
  std::vector<float> buffer(24);
  EXPECT_TRUE(torch::from_blob(buffer.data(), {2, 3, 4}).is_contiguous());
}

// So reshape, flatten and contiguous() of such a tensor are views of it (or
// the tensor itself), never copies: a write through them reaches it.
TEST(IntendedWritesFacts, MayAliasOfAContiguousTensorIsAView) {
  torch::Tensor out = torch::zeros({2, 3, 4});
  torch::Tensor flat = out[1].flatten();
  flat.add_(1);
  EXPECT_EQ(out[1].sum().item<float>(), 12);
  EXPECT_TRUE(sharesStorage(out.reshape({6, 4}), out));
  EXPECT_TRUE(out.contiguous().is_same(out));
  EXPECT_TRUE(out.view({6, 4}).narrow(0, 0, 1).reshape({4}).is_contiguous());
}

// A view along another dimension is not contiguous, and flattening it
// copies: the may-alias case the check still reports.
TEST(IntendedWritesFacts, AViewAlongAnotherDimensionIsNotContiguous) {
  torch::Tensor x = torch::rand({3, 4}) + 1;
  torch::Tensor columns = x.narrow(1, 0, 2);
  EXPECT_FALSE(columns.is_contiguous());
  EXPECT_FALSE(x.select(1, 0).is_contiguous());
  columns.reshape({-1}).zero_();
  EXPECT_GT(x.narrow(1, 0, 2).min().item<float>(), 0);
}

// A permutation survives the views that keep strides, so contiguous() after
// them still copies; clone() and zeros_like keep a permuted layout.
TEST(IntendedWritesFacts, PermutedStridesSurviveUnsqueezeCloneAndLike) {
  std::vector<float> pixels(2 * 3 * 3);
  torch::Tensor image = torch::from_blob(pixels.data(), {2, 3, 3});
  torch::Tensor chw = image.permute({2, 0, 1}).unsqueeze(0);
  EXPECT_FALSE(chw.is_contiguous());
  EXPECT_FALSE(sharesStorage(chw.contiguous(), image));
  torch::Tensor t = torch::rand({3, 4}).t();
  EXPECT_FALSE(t.clone().is_contiguous());
  EXPECT_FALSE(torch::zeros_like(t).is_contiguous());
  EXPECT_TRUE(torch::zeros_like(t).contiguous().is_contiguous());
  EXPECT_FALSE(sharesStorage(torch::zeros_like(t).contiguous(), t));
  // Without a permutation, contiguous() of a from_blob tensor is the tensor.
  torch::Tensor batched = image.unsqueeze(0);
  EXPECT_TRUE(batched.contiguous().is_same(batched));
  EXPECT_TRUE(sharesStorage(batched, image));
}

// A local rebound to a view of itself: the view is the only handle left, and
// the write lands in the local's own storage, whatever the view was.
TEST(IntendedWritesFacts, AReboundLocalHoldsItsOwnTensor) {
  torch::Tensor grad = torch::rand({2, 3, 4});
  torch::Tensor buffer = torch::zeros_like(grad);
  buffer = buffer.view({2, -1});
  buffer = buffer.contiguous();
  buffer.copy_(grad.reshape({2, -1}));
  EXPECT_TRUE(buffer.equal(grad.reshape({2, -1})));
}

// `buf[g] = buf[g].flatten(1).addmm_(a, b).view_as(buf[g])` leaves the sum in
// buf[g] whether flatten made a view (contiguous) or a copy (transposed).
TEST(IntendedWritesFacts, AResultCopiedBackLandsEitherWay) {
  torch::Tensor a = torch::rand({2, 3}), b = torch::rand({3, 12});
  for (bool transposed : {false, true}) {
    torch::Tensor buf = transposed ? torch::zeros({2, 2, 4, 3}).transpose(2, 3)
                                   : torch::zeros({2, 2, 3, 4});
    EXPECT_EQ(sharesStorage(buf[0].flatten(1), buf), !transposed);
    torch::Tensor expected = buf[0].flatten(1).clone().addmm(a, b);
    buf[0] = buf[0].flatten(1).addmm_(a, b).view_as(buf[0]);
    EXPECT_TRUE(buf[0].flatten(1).allclose(expected)) << transposed;
  }
}

// Different positions along one dimension, counted from the end, are
// different elements: no overlap, no error, the right result.
TEST(IntendedWritesFacts, DisjointSelectsShareNoElement) {
  torch::Tensor boxes = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f}).repeat({5, 1});
  EXPECT_NO_THROW(boxes.select(-1, 2) += boxes.select(-1, 0));
  EXPECT_NO_THROW(boxes.select(-1, 3) += boxes.select(-1, 1));
  EXPECT_TRUE(boxes[0].equal(torch::tensor({1.0f, 2.0f, 4.0f, 6.0f})));
}

// The frame-stack shift `x[:, :-k] = x[:, k:]` overlaps itself: PyTorch
// throws where it can see the overlap (a leading dimension of one makes the
// windows dense), and copies with no check otherwise, so the result depends
// on the order the kernel reads and writes in: shifting towards the end
// reads frames it has already overwritten.
TEST(IntendedWritesFacts, TheFrameStackShiftOverlapsItself) {
  const int64_t k = 2;
  torch::Tensor single = torch::arange(8.0).view({1, 8});
  EXPECT_THROW(single.index_put_({Slice(), Slice(None, -k)},
                                 single.index({Slice(), Slice(k, None)})),
               c10::Error);
  torch::Tensor batch = torch::arange(32.0).view({4, 8});
  EXPECT_NO_THROW(batch.index_put_({Slice(), Slice(None, -k)},
                                   batch.index({Slice(), Slice(k, None)})));
  torch::Tensor later = torch::arange(32.0).view({4, 8});
  torch::Tensor expected = later.clone();
  expected.index_put_({Slice(), Slice(k, None)},
                      expected.index({Slice(), Slice(None, -k)}).clone());
  later.index_put_({Slice(), Slice(k, None)}, later.index({Slice(), Slice(None, -k)}));
  EXPECT_FALSE(later.equal(expected));
}

} // namespace
