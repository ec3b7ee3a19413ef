// The libtorch 1.13.1 behaviours that libtorch-detached-write's messages
// about saved tensors state, called by hand against the real library: what a
// write into a tensor an earlier operation saved does, through its handle, a
// view, `detach()` or `.data()`, and the cases the check leaves alone because
// nothing was saved. Which operator saves what is measured into
// checks/data/aten-saved-tensors.json; autograd_facts_test.cpp checks the
// table against hand-written calls.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

namespace {

constexpr const char *ModifiedSavedTensor =
    "one of the variables needed for gradient computation has been modified "
    "by an inplace operation";

torch::Tensor leaf(int64_t seed) {
  torch::manual_seed(seed);
  return (torch::rand({3}, torch::kDouble) + 0.5).requires_grad_();
}

std::string backwardError(const torch::Tensor &y) {
  try {
    y.sum().backward();
  } catch (const c10::Error &e) {
    return e.what_without_backtrace();
  }
  return "";
}

bool throwsModifiedSavedTensor(const torch::Tensor &y) {
  return backwardError(y).find(ModifiedSavedTensor) != std::string::npos;
}

// "'mul_' writes in place into local 'y', which 'exp' saved for backward;
// backward throws ..."
TEST(SavedTensorFacts, InPlaceWriteIntoASavedResultMakesBackwardThrow) {
  for (auto op : {+[](const torch::Tensor &x) { return x.exp(); },
                  +[](const torch::Tensor &x) { return torch::tanh(x); },
                  +[](const torch::Tensor &x) { return torch::sigmoid(x); },
                  +[](const torch::Tensor &x) { return torch::relu(x); }}) {
    torch::Tensor y = op(leaf(1));
    y.mul_(2);
    EXPECT_TRUE(throwsModifiedSavedTensor(y));
  }
}

// A view shares its base's version counter: `y.narrow(...).zero_()`.
TEST(SavedTensorFacts, WriteThroughAViewOfASavedResultMakesBackwardThrow) {
  torch::Tensor y = torch::sigmoid(leaf(1));
  y.narrow(0, 0, 1).zero_();
  EXPECT_TRUE(throwsModifiedSavedTensor(y));
}

// "'add_' writes in place into local 'b', which 'div' saved for backward"
TEST(SavedTensorFacts, InPlaceWriteIntoASavedInputMakesBackwardThrow) {
  torch::Tensor w = leaf(1);
  torch::Tensor a = w * 2, b = w + 1;
  torch::Tensor y = a / b;
  b.add_(1);
  EXPECT_TRUE(throwsModifiedSavedTensor(y));
}

// "'add_' writes through 'detach()' into local 'y', which 'tanh' saved for
// backward; 'detach()' shares the storage and the version counter, so
// backward throws ..."
TEST(SavedTensorFacts, DetachWriteIntoASavedResultMakesBackwardThrow) {
  torch::Tensor y = torch::tanh(leaf(1) * 3);
  y.detach().add_(1);
  EXPECT_TRUE(throwsModifiedSavedTensor(y));
}

// "'mul_' writes through 'data()' into local 'y', which 'tanh' saved for
// backward; 'data()' does not share the version counter, so backward
// computes wrong gradients without an error"
TEST(SavedTensorFacts, DataWriteIntoASavedResultCorruptsTheGradientSilently) {
  torch::Tensor x = leaf(1);
  torch::Tensor y = torch::tanh(x);
  torch::Tensor expected = 1 - y.detach().pow(2);
  auto version = y._version();
  y.data().mul_(0.5);
  EXPECT_EQ(y._version(), version);
  EXPECT_EQ(backwardError(y), "");
  EXPECT_FALSE(torch::allclose(x.grad(), expected));
  EXPECT_TRUE(torch::allclose(x.grad(), 1 - (y.detach()).pow(2)));
}

// The check stays quiet where nothing was saved.
TEST(SavedTensorFacts, AddScalarMulAndMulResultsAreNotSaved) {
  torch::Tensor w = leaf(1);
  torch::Tensor a = w * 2, b = w + 1;
  torch::Tensor sum = a + b;
  a.mul_(2);
  b.mul_(2);
  EXPECT_EQ(backwardError(sum), "");

  torch::Tensor h = w * 3;
  torch::Tensor scaled = h * 2;
  h.mul_(3);
  EXPECT_EQ(backwardError(scaled), "");

  torch::Tensor c = w * 4;
  torch::Tensor product = c * c;
  product.mul_(2);
  EXPECT_EQ(backwardError(product), "");
}

// `mul` saves an input only for the other input's gradient: `h * mask` with
// a mask that needs none does not save `h`.
TEST(SavedTensorFacts, AnInputIsSavedOnlyForAnotherOperandThatNeedsGrad) {
  torch::Tensor h = leaf(1) * 2;
  torch::Tensor mask = torch::rand({3}, torch::kDouble);
  torch::Tensor y = h * mask;
  h.mul_(2);
  EXPECT_EQ(backwardError(y), "");
}

TEST(SavedTensorFacts, NothingIsSavedUnderNoGradGuard) {
  torch::Tensor x = leaf(1);
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    y = x.exp();
  }
  y.mul_(2);
  EXPECT_EQ(backwardError(y * x), "");
}

// Why a leaf that requires grad is left to this error instead.
TEST(SavedTensorFacts, AnInPlaceWriteIntoALeafThatRequiresGradThrowsAtOnce) {
  torch::Tensor x = leaf(1);
  torch::Tensor y = x.pow(2);
  try {
    x.add_(1);
    ADD_FAILURE() << "the write did not throw";
  } catch (const c10::Error &e) {
    EXPECT_NE(std::string(e.what_without_backtrace())
                  .find("a leaf Variable that requires grad"),
              std::string::npos);
  }
}

// Writes after the backward that needed the tensor are harmless.
TEST(SavedTensorFacts, AWriteAfterBackwardIsHarmless) {
  torch::Tensor y = leaf(1).exp();
  EXPECT_EQ(backwardError(y), "");
  y.mul_(2);
}

// Note [Module state written before backward]: a module call saves the
// module's state for the backward of its result.

// An input that is part of a graph (as a layer's input in a network is), so
// that Linear's forward saves its weight.
torch::Tensor graphInput(int64_t seed) {
  torch::manual_seed(seed);
  return torch::rand({1, 3}).requires_grad_().mul(1);
}

// "backward needs member 'weight' of 'out' as the forward of 'out' saved it,
// but ... wrote it in place through 'detach()' ...; backward throws ..."
TEST(ModuleStateFacts, ALinearCallSavesItsWeightForBackward) {
  for (int route = 0; route < 2; ++route) {
    SCOPED_TRACE(route == 0 ? "through detach()" : "under NoGradGuard");
    torch::nn::Linear layer(3, 2);
    torch::Tensor y = layer(graphInput(1));
    if (route == 0) {
      layer->weight.detach().mul_(0.5);
    } else {
      torch::NoGradGuard no_grad;
      layer->weight.mul_(0.5);
    }
    EXPECT_TRUE(throwsModifiedSavedTensor(y));
  }
}

// "... through 'data()' ...; 'data()' does not share the version counter,
// so backward computes wrong gradients without an error"
TEST(ModuleStateFacts, ADataWriteIntoASavedWeightCorruptsTheGradientSilently) {
  auto inputGrad = [](bool clip) {
    torch::manual_seed(3);
    torch::nn::Linear layer(3, 2);
    torch::manual_seed(1);
    torch::Tensor x = torch::rand({1, 3}).requires_grad_();
    torch::Tensor y = layer(x);
    if (clip)
      layer->weight.data().clamp_(-0.01, 0.01);
    EXPECT_EQ(backwardError(y), "");
    return x.grad().clone();
  };
  EXPECT_FALSE(torch::allclose(inputGrad(false), inputGrad(true)));
}

// A user's module saves what its forward's operations save: a buffer it
// multiplies by, but not one it only adds.
struct ScaledShiftedImpl : torch::nn::Module {
  ScaledShiftedImpl() {
    scale = register_buffer("scale", torch::full({1}, 2.0, torch::kDouble));
    offset = register_buffer("offset", torch::zeros({1}, torch::kDouble));
  }
  torch::Tensor forward(const torch::Tensor &x) { return x * scale + offset; }
  torch::Tensor scale, offset;
};
TORCH_MODULE(ScaledShifted);

TEST(ModuleStateFacts, AForwardSavesTheBufferItMultipliesByNotTheOneItAdds) {
  {
    ScaledShifted module;
    torch::Tensor y = module(leaf(1));
    {
      torch::NoGradGuard no_grad;
      module->scale.fill_(3);
    }
    EXPECT_TRUE(throwsModifiedSavedTensor(y));
  }
  {
    ScaledShifted module;
    torch::Tensor y = module(leaf(1));
    {
      torch::NoGradGuard no_grad;
      module->offset.fill_(1);
    }
    EXPECT_EQ(backwardError(y), "");
  }
}

// A forward run under NoGradGuard saves nothing.
TEST(ModuleStateFacts, AForwardWithoutGradSavesNothing) {
  torch::nn::Linear layer(3, 2);
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    y = layer(graphInput(1));
  }
  layer->weight.detach().mul_(0.5);
  torch::Tensor w = torch::ones({1, 2}).requires_grad_();
  EXPECT_EQ(backwardError(y * w), "");
}

// Note [In-place modules in a Sequential]: "'Dropout' writes its input in
// place, the output of 'LeakyReLU', which 'LeakyReLU' saved for backward;
// backward through this Sequential throws ...". ReLU saves its output too;
// Linear saves its input, so an in-place module after it is fine.
TEST(ModuleStateFacts, AnInPlaceModuleAfterOneThatSavedItsOutputBreaksBackward) {
  auto backwardThrough = [](torch::nn::Sequential Model) {
    Model->train();
    return backwardError(Model->forward(graphInput(1)));
  };
  namespace nn = torch::nn;
  EXPECT_NE(backwardThrough(nn::Sequential(
                nn::Linear(3, 4),
                nn::LeakyReLU(nn::LeakyReLUOptions().inplace(true)),
                nn::Dropout(nn::DropoutOptions(0.5).inplace(true))))
                .find(ModifiedSavedTensor),
            std::string::npos);
  EXPECT_NE(backwardThrough(nn::Sequential(
                nn::Linear(3, 4), nn::ReLU(),
                nn::Dropout(nn::DropoutOptions(0.5).inplace(true))))
                .find(ModifiedSavedTensor),
            std::string::npos);
  EXPECT_EQ(backwardThrough(nn::Sequential(
                nn::Linear(3, 4), nn::ReLU(nn::ReLUOptions().inplace(true)),
                nn::Linear(4, 4),
                nn::Dropout(nn::DropoutOptions(0.5).inplace(true)))),
            "");
}

} // namespace
