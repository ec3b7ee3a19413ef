// The libtorch 1.13.1 overlap behaviours that libtorch-overlapping-inplace's
// messages state, run against the real library. The check takes them from
// checks/data/aten-overlap.json (test/unit/OverlapSemanticsTest.cpp pins the
// table); this file pins the library, so that an upgrade that changes one
// fails here and the check's message and docs page change with it.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

namespace {

using torch::indexing::None;
using torch::indexing::Slice;

// Every variant of libtorch's overlap error says this.
constexpr const char *OverlapError = "single memory location";

template <typename Call> std::string errorOf(Call &&call) {
  try {
    call();
  } catch (const c10::Error &e) {
    return e.what_without_backtrace();
  }
  return "";
}

// aten::index_put_ rejects `values` being `self`: "aten::index_put_ throws
// ... even for the same tensor".
TEST(OverlapSemanticsFacts, IndexPutRejectsValuesThatAreSelf) {
  auto x = torch::arange(4.0);
  auto i = torch::tensor({0, 2});
  EXPECT_NE(errorOf([&] { x.index_put_({i}, x); }).find(OverlapError),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              x.index_put_(c10::List<c10::optional<at::Tensor>>{i}, x);
            }).find(OverlapError),
            std::string::npos);
}

TEST(OverlapSemanticsFacts, IndexPutRejectsAnIndexThatIsSelf) {
  auto idx = torch::tensor({0, 1, 2});
  EXPECT_NE(errorOf([&] { idx.index_put_({idx}, torch::tensor({5, 5, 5})); })
                .find(OverlapError),
            std::string::npos);
}

// Element-wise operators accept an exact alias, and compute the right thing.
TEST(OverlapSemanticsFacts, AddAcceptsAnExactAlias) {
  auto x = torch::arange(4.0);
  EXPECT_EQ(errorOf([&] { x.add_(x); }), "");
  EXPECT_TRUE(x.equal(torch::arange(4.0) * 2));
  auto y = torch::ones({4});
  EXPECT_EQ(errorOf([&] { at::add_out(x, x, y); }), "");
  EXPECT_TRUE(x.equal(torch::arange(4.0) * 2 + 1));
  x.mul_(x);
  EXPECT_TRUE(x.equal((torch::arange(4.0) * 2 + 1).pow(2)));
}

// ... and reject a partial overlap they can see (dense windows).
TEST(OverlapSemanticsFacts, AddRejectsAPartialOverlap) {
  auto x = torch::arange(5.0);
  EXPECT_NE(errorOf([&] { x.narrow(0, 1, 4).add_(x.narrow(0, 0, 4)); })
                .find(OverlapError),
            std::string::npos);
  auto y = torch::ones({1});
  EXPECT_NE(errorOf([&] {
              auto out = x.narrow(0, 1, 4);
              at::add_out(out, x.narrow(0, 0, 4), y);
            }).find(OverlapError),
            std::string::npos);
}

// Note [Indexing writes]: with basic indices, index_put_ copies the value
// into `self.index(indices)`. Copying slot k - 1 into slot k is a frame shift
// that gives the expected result.
TEST(OverlapSemanticsFacts, BasicIndexPutWritesOnlyTheIndexedSlot) {
  auto frames = torch::arange(12.0).reshape({3, 4});
  auto expected = frames.clone();
  for (int64_t k = 3; k > 0; --k) {
    frames.index_put_({Slice(), k}, frames.index({Slice(), k - 1}));
    expected.select(1, k).copy_(expected.select(1, k - 1).clone());
  }
  EXPECT_TRUE(frames.equal(expected));
  EXPECT_TRUE(frames.equal(torch::tensor(
      {{0.0, 0.0, 1.0, 2.0}, {4.0, 4.0, 5.0, 6.0}, {8.0, 8.0, 9.0, 10.0}})));
  // An exact alias through basic indices is copy_ of a tensor onto itself,
  // which copy_ accepts; with a tensor index it is aten::index_put_.
  auto x = torch::arange(4.0);
  EXPECT_EQ(errorOf([&] { x.index_put_({Slice()}, x); }), "");
}

// A shifted overlapping window through basic indices is copy_'s partial
// overlap: thrown when the windows are dense, ...
TEST(OverlapSemanticsFacts, BasicIndexPutOfAShiftedWindowThrowsWhenDense) {
  auto buf = torch::arange(5.0);
  EXPECT_NE(errorOf([&] {
              buf.index_put_({Slice(1, None)}, buf.index({Slice(None, -1)}));
            }).find(OverlapError),
            std::string::npos);
}

// ... and not seen for a slice along an inner dimension, where the copy runs
// over elements it has already written or not, as the kernel goes.
TEST(OverlapSemanticsFacts, ShiftedInnerWindowIsNotChecked) {
  auto buf = torch::arange(12.0).reshape({3, 4});
  auto intended = buf.clone();
  intended.index_put_({Slice(), Slice(1, None)},
                      intended.index({Slice(), Slice(None, -1)}).clone());
  EXPECT_EQ(errorOf([&] {
              buf.index_put_({Slice(), Slice(1, None)},
                             buf.index({Slice(), Slice(None, -1)}));
            }),
            "");
  // The CPU kernel reads columns it has already written.
  EXPECT_FALSE(buf.equal(intended));
}

// matmul.out and mm.out accept an out= that partially overlaps an input:
// "aten::matmul does not reject this overlap".
// ... and compute a wrong result with it: "aten::mm does not reject this
// and computes a wrong result". With out= one of its inputs, mm_out
// overwrites rows of the input that later rows of the product still read.
TEST(OverlapSemanticsFacts, MatrixProductsIntoAnInputAreWrong) {
  auto a = torch::rand({3, 3}, torch::kFloat64);
  auto b = torch::rand({3, 3}, torch::kFloat64);
  auto batch = torch::rand({2, 3, 3}, torch::kFloat64);
  auto expected = a.mm(b), expectedBatch = batch.bmm(batch);
  EXPECT_EQ(errorOf([&] { at::mm_out(a, a, b); }), "");
  EXPECT_FALSE(a.allclose(expected));
  EXPECT_EQ(errorOf([&] { at::bmm_out(batch, batch, batch); }), "");
  EXPECT_FALSE(batch.allclose(expectedBatch));
  auto c = torch::rand({3, 3}, torch::kFloat64);
  auto expectedC = c.matmul(b);
  at::matmul_out(c, c, b);
  EXPECT_FALSE(c.allclose(expectedC));
  // The bias of addmm is added element-wise: out= may be it.
  auto bias = torch::rand({3, 3}, torch::kFloat64);
  auto expectedBias = bias.addmm(a, b);
  at::addmm_out(bias, bias, a, b);
  EXPECT_TRUE(bias.allclose(expectedBias));
}

TEST(OverlapSemanticsFacts, MatmulOutAcceptsAPartialOverlap) {
  auto buf = torch::rand({4, 3}, torch::kFloat64);
  auto w = torch::rand({3, 3}, torch::kFloat64);
  EXPECT_EQ(errorOf([&] {
              auto out = buf.narrow(0, 1, 3);
              at::matmul_out(out, buf.narrow(0, 0, 3), w);
            }),
            "");
  EXPECT_EQ(errorOf([&] {
              auto out = buf.narrow(0, 1, 3);
              at::mm_out(out, buf.narrow(0, 0, 3), w);
            }),
            "");
}

} // namespace
