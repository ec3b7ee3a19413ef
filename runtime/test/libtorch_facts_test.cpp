// The libtorch 1.13.1 behaviours that the static checks' diagnostics state,
// run against the real library: if an upgrade changes one, this fails and
// the check's message and docs page must change with it.
#include <gtest/gtest.h>
#include <torch/torch.h>

namespace {

// A dataset whose examples are rows of its own tensors, as
// libtorch-worker-missing-clone's dataset case describes.
struct RowDataset : torch::data::datasets::Dataset<RowDataset> {
  torch::Tensor images_ = torch::full({4, 2}, 255.0);
  torch::Tensor labels_ = torch::zeros({4});
  torch::data::Example<> get(size_t i) override {
    return {images_[i], labels_[i]};
  }
  torch::optional<size_t> size() const override { return 4; }
};

using Sequential = torch::data::samplers::SequentialSampler;

TEST(LibtorchFacts, WritingAnUnstackedExampleRewritesTheDataset) {
  auto loader = torch::data::make_data_loader<Sequential>(RowDataset(), 2);
  std::vector<float> sums;
  for (int epoch = 0; epoch < 2; ++epoch) {
    float sum = 0;
    for (auto &batch : *loader)
      for (auto &example : batch) {
        example.data.div_(255);
        sum += example.data.sum().item<float>();
      }
    sums.push_back(sum);
  }
  EXPECT_FLOAT_EQ(sums[0], 8.0f);
  // The second epoch reads the rows the first one divided.
  EXPECT_FLOAT_EQ(sums[1], 8.0f / 255);
}

TEST(LibtorchFacts, StackedBatchesAreFresh) {
  auto loader = torch::data::make_data_loader<Sequential>(
      RowDataset().map(torch::data::transforms::Stack<>()), 2);
  for (int epoch = 0; epoch < 2; ++epoch) {
    float sum = 0;
    for (auto &batch : *loader) {
      batch.data.div_(255);
      sum += batch.data.sum().item<float>();
    }
    EXPECT_FLOAT_EQ(sum, 8.0f) << "epoch " << epoch;
  }
}

// libtorch-shared-parameter-update offers no `register_parameter` fix-it for
// a parameter member assignment, because re-registering a name throws.
TEST(LibtorchFacts, RegisteringAParameterNameTwiceThrows) {
  torch::nn::Linear linear(2, 2);
  torch::Tensor other = torch::zeros({2, 2});
  EXPECT_THROW(linear->register_parameter("weight", other), c10::Error);
}

// A ModuleHolder copy is the same module: libtorch-shared-parameter-update's
// and libtorch-worker-missing-clone's holder-copy findings rest on this.
TEST(LibtorchFacts, CopyingAModuleHolderSharesTheModule) {
  torch::nn::Linear online(2, 2);
  torch::nn::Linear target = online;
  {
    torch::NoGradGuard no_grad;
    online->weight.fill_(1);
  }
  EXPECT_TRUE(torch::equal(target->weight, torch::ones({2, 2})));
  EXPECT_EQ(target.ptr(), online.ptr());
}

// libtorch-inplace-on-view's TrackedParameter hazard: writing a view of a
// registered parameter where autograd records it throws; under a no-grad
// guard it is the intended update.
TEST(LibtorchFacts, WritingAViewOfAParameterThrowsOutsideNoGrad) {
  torch::nn::Linear linear(2, 2);
  EXPECT_THROW(linear->weight.narrow(0, 0, 1).mul_(0.5), c10::Error);
  torch::NoGradGuard no_grad;
  EXPECT_NO_THROW(linear->weight.narrow(0, 0, 1).mul_(0.5));
}

// A module's buffer is not tracked by autograd: writing its views is a plain
// state update.
TEST(LibtorchFacts, WritingAViewOfABufferDoesNotThrow) {
  torch::nn::BatchNorm1d norm(2);
  EXPECT_FALSE(norm->running_mean.requires_grad());
  EXPECT_NO_THROW(norm->running_mean.narrow(0, 0, 1).zero_());
}

// Note [Layout facts]: which may-alias operations the analysis decides.
TEST(LibtorchFacts, ContiguousCopiesAPermutedTensor) {
  torch::Tensor x = torch::rand({3, 4});
  for (const torch::Tensor &permuted :
       {x.t(), x.transpose(0, 1), x.permute({1, 0}), x.mT()}) {
    EXPECT_FALSE(permuted.is_contiguous());
    torch::Tensor c = permuted.contiguous();
    EXPECT_NE(c.data_ptr(), x.data_ptr());
  }
  // A contiguous input is returned as it is: the may-alias case.
  EXPECT_EQ(x.contiguous().data_ptr(), x.data_ptr());
}

TEST(LibtorchFacts, ToADifferentDtypeCopiesAndToTheSameDtypeDoesNot) {
  torch::Tensor image = torch::zeros({2, 2}, torch::kByte);
  torch::Tensor scaled = image.to(torch::kFloat);
  EXPECT_NE(scaled.data_ptr(), image.data_ptr());
  EXPECT_EQ(scaled.scalar_type(), torch::kFloat);
  torch::Tensor same = scaled.to(torch::kFloat);
  EXPECT_TRUE(same.is_same(scaled));
}

// Note [Conversions told to copy]: `to()` to what a tensor already is
// returns the tensor itself, unless `copy` is true.
TEST(LibtorchFacts, AConversionToldToCopyReturnsANewTensor) {
  torch::Tensor logits = torch::rand({2, 3});
  torch::Tensor same = logits.to(torch::kCPU);
  torch::Tensor copied = logits.to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true);
  torch::Tensor copiedDtype = logits.to(torch::kFloat, false, true);
  EXPECT_TRUE(same.is_same(logits));
  EXPECT_NE(copied.data_ptr(), logits.data_ptr());
  EXPECT_NE(copiedDtype.data_ptr(), logits.data_ptr());
  torch::Tensor before = copied.clone();
  logits.div_(2);
  EXPECT_TRUE(torch::equal(copied, before));
}

// Note [Outputs of library modules]: a Sequential's forward returns a new
// tensor, not its input or a view of it.
TEST(LibtorchFacts, ASequentialReturnsANewTensor) {
  torch::nn::Sequential net(torch::nn::Linear(3, 4), torch::nn::Tanh(),
                            torch::nn::Linear(4, 3));
  torch::Tensor x = torch::rand({2, 3});
  torch::Tensor y = net->forward(x);
  EXPECT_NE(y.data_ptr(), x.data_ptr());
  EXPECT_NE(y.storage().data(), x.storage().data());
}

// Note [A view read after its base changed]: a view of part of a tensor,
// whichever operator takes it, reads the tensor's current values after an
// in-place write of the tensor; a clone keeps the old ones. A tensor
// rebound to a new one (`x = x * 2`) leaves the view on the old storage.
TEST(LibtorchFacts, AViewOfPartOfATensorSeesLaterInPlaceWrites) {
  torch::Tensor image = torch::arange(12, torch::kFloat).view({2, 2, 3});
  torch::Tensor red = image.select(2, 2);
  torch::Tensor first = image.narrow(0, 0, 1);
  torch::Tensor chunk = image.chunk(2, 0)[1];
  torch::Tensor column = image.unbind(2)[0];
  torch::Tensor kept = image.select(2, 2).clone();
  image.mul_(10);
  EXPECT_TRUE(torch::equal(red, image.select(2, 2)));
  EXPECT_TRUE(torch::equal(first, image.narrow(0, 0, 1)));
  EXPECT_TRUE(torch::equal(chunk, image.chunk(2, 0)[1]));
  EXPECT_TRUE(torch::equal(column, image.unbind(2)[0]));
  EXPECT_TRUE(torch::equal(kept * 10, image.select(2, 2)));

  torch::Tensor before = red.clone();
  image = image * 2;
  EXPECT_TRUE(torch::equal(red, before));
}

// The same for a view of the whole tensor: an `expand` taken as "the old
// mean" reads the updated mean, so Welford's M2 term built from it and the
// new mean is wrong; a clone of the expansion keeps the old values.
TEST(LibtorchFacts, AnExpansionOfATensorSeesLaterInPlaceWrites) {
  torch::Tensor mean = torch::tensor({1.0, 2.0});
  torch::Tensor batch = torch::tensor({{3.0, 2.0}, {5.0, 6.0}});
  torch::Tensor old_mean = mean.expand({2, -1});
  torch::Tensor kept = mean.expand({2, -1}).clone();
  mean.add_(batch.mean(0) - mean, 0.5);
  EXPECT_TRUE(torch::equal(old_mean[1], mean));
  EXPECT_FALSE(torch::equal(kept[1], mean));
  torch::Tensor m2 = ((batch - old_mean) * (batch - mean)).sum(0);
  torch::Tensor right = ((batch - kept) * (batch - mean)).sum(0);
  EXPECT_FALSE(torch::allclose(m2, right));
}

// The same through a write of another view of the tensor (a channel swap):
// only the elements that write covers change in the kept view.
TEST(LibtorchFacts, AViewSeesWritesThroughOtherViewsOfItsBase) {
  torch::Tensor image = torch::arange(6, torch::kFloat).view({2, 3});
  torch::Tensor left = image.narrow(1, 0, 1);
  torch::Tensor right = image.narrow(1, 2, 1);
  torch::Tensor right_before = right.clone();
  image.narrow(1, 0, 1).copy_(image.narrow(1, 2, 1));
  EXPECT_TRUE(torch::equal(left, right_before));
  EXPECT_TRUE(torch::equal(right, right_before));
}

// Note [Snapshots of handles], for one handle: a tensor variable copied
// from another is the same tensor, so after an in-place write (an
// optimizer step) their difference is zero; a clone keeps the old values.
TEST(LibtorchFacts, ACopiedHandleIsTheSameTensorAfterAStep) {
  torch::nn::Linear layer(3, 2);
  torch::optim::SGD opt(layer->parameters(), 0.5);
  torch::Tensor start = layer->weight;
  torch::Tensor kept = layer->weight.clone();
  layer(torch::ones({4, 3})).sum().backward();
  opt.step();
  EXPECT_TRUE(start.is_same(layer->weight));
  EXPECT_EQ((layer->weight - start).abs().max().item<float>(), 0.0f);
  EXPECT_GT((layer->weight - kept).abs().max().item<float>(), 0.0f);
}

} // namespace
