// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

#include <torch/torch.h>

// Note [Module calls]: a library module's forward writes and saves what the
// API effect table measured, under the options the module was built with.

// Positive: an in-place ReLU member, registered in the constructor, applied
// to features a Linear layer saved.

struct TwoHeadsImpl : torch::nn::Module {
  TwoHeadsImpl() {
    trunk = register_module("trunk", torch::nn::Linear(8, 16));
    head = register_module("head", torch::nn::Linear(16, 2));
    act = register_module("act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    auto features = trunk(x);
    auto logits = head(features);
    auto gated = act(features);
    // CHECK-NOTES: :[[@LINE-1]]:18: warning: 'act' writes in place into local 'features', which 'head' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
    // CHECK-NOTES: :[[@LINE-3]]:19: note: 'head' saves 'features' for backward here
    return logits.sum() + gated.sum();
  }
  torch::nn::Linear trunk{nullptr}, head{nullptr};
  torch::nn::ReLU act{nullptr};
};

// Positive: a local ReLU built with the options' constructor (`inplace` is
// its parameter), on the result sigmoid saved.

void PositiveInplaceByOptionsConstructor() {
  auto w = torch::rand({3}, torch::requires_grad());
  torch::nn::ReLU act(torch::nn::ReLUOptions(true));
  auto s = torch::sigmoid(w * 2);
  auto r = act->forward(s);
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: 'act' writes in place into local 's', which 'sigmoid' saved for backward
  // CHECK-NOTES: :[[@LINE-3]]:12: note: 'sigmoid' saves its result for backward here
  r.sum().backward();
}

// Positive: ReLU without `inplace` saves its result; writing that result
// in place breaks the backward.

void PositiveWriteIntoReluResult(torch::nn::Linear fc, const torch::Tensor &x) {
  torch::nn::ReLU relu;
  auto h = relu(fc(x));
  h.mul_(2);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'mul_' writes in place into local 'h', which 'relu' saved for backward
  // CHECK-NOTES: :[[@LINE-3]]:12: note: 'relu' saves its result for backward here
  h.sum().backward();
}

// Negative: an in-place ReLU right after a Linear layer, which saved its
// input and not its output.

struct MlpImpl : torch::nn::Module {
  MlpImpl() : fc1(8, 16), fc2(16, 2), act(torch::nn::ReLUOptions().inplace(true)) {}
  torch::Tensor forward(const torch::Tensor &x) {
    auto h = fc1(x);
    auto y = act(h);
    return fc2(y);
  }
  torch::nn::Linear fc1, fc2;
  torch::nn::ReLU act;
};

// Negative: `inplace(false)` writes nothing.

void NegativeNotInplace() {
  auto w = torch::rand({3}, torch::requires_grad());
  torch::nn::ReLU act(torch::nn::ReLUOptions().inplace(false));
  auto s = torch::sigmoid(w * 2);
  auto r = act(s);
  r.sum().backward();
}

// Negative: a module handed in is taken to have its defaults.

void NegativeUnknownConstruction(torch::nn::Dropout &drop) {
  auto w = torch::rand({3}, torch::requires_grad());
  auto s = torch::sigmoid(w * 2);
  auto r = drop(s);
  r.sum().backward();
}

// Note [In-place modules in a Sequential]: each module's output is the next
// one's input.

void PositiveSequentialInplaceAfterSavingActivation() {
  torch::nn::Sequential critic(
      torch::nn::Linear(16, 32),
      torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2).inplace(true)),
      torch::nn::Dropout(torch::nn::DropoutOptions(0.3).inplace(true)),
      // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'Dropout' writes its input in place, the output of 'LeakyReLU', which 'LeakyReLU' saved for backward; backward through this Sequential throws 'one of the variables needed for gradient computation has been modified by an inplace operation'
      // CHECK-NOTES: :[[@LINE-3]]:7: note: 'LeakyReLU' saves its output for backward
      torch::nn::Linear(32, 1));
}

struct EncoderImpl : torch::nn::Module {
  EncoderImpl()
      : body(torch::nn::Linear(4, 4), torch::nn::ReLU(),
             torch::nn::Dropout(torch::nn::DropoutOptions(0.1).inplace(true))) {}
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'Dropout' writes its input in place, the output of 'ReLU'
  // CHECK-NOTES: :[[@LINE-3]]:39: note: 'ReLU' saves its output for backward
  torch::nn::Sequential body;
};

// Negative: in-place activations after layers that save their input.

void NegativeSequentialInplaceAfterLinear() {
  torch::nn::Sequential mlp(
      torch::nn::Linear(16, 32),
      torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)),
      torch::nn::Linear(32, 32),
      torch::nn::Dropout(torch::nn::DropoutOptions(0.3).inplace(true)),
      torch::nn::Linear(32, 1));
}

// Negative: a Dropout that is not in place after a saving activation.

void NegativeSequentialOutOfPlaceDropout() {
  torch::nn::Sequential mlp(torch::nn::Linear(16, 32), torch::nn::ReLU(),
                            torch::nn::Dropout(0.3), torch::nn::Linear(32, 1));
}

// Positive: an in-place Dropout member on the result softmax saved, with the
// result assigned back to the same variable; the scores come from a list of
// a layer's chunks.

struct AttentionImpl : torch::nn::Module {
  AttentionImpl() : qkv(8, 24), drop(torch::nn::DropoutOptions(0.1).inplace(true)) {}
  torch::Tensor forward(const torch::Tensor &x) {
    auto parts = qkv(x).chunk(3, -1);
    auto probs = torch::sigmoid(parts[0].matmul(parts[1]));
    probs = drop(probs);
    // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'drop' writes in place into local 'probs', which 'sigmoid' saved for backward
    // CHECK-NOTES: :[[@LINE-3]]:18: note: 'sigmoid' saves its result for backward here
    return probs.matmul(parts[2]);
  }
  torch::nn::Linear qkv;
  torch::nn::Dropout drop;
};
