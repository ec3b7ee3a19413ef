// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

// A helper of the translation unit that writes its parameter in place,
// called on a tensor (or a view of it) that an earlier operation saved for
// backward: the finding is at the write in the helper, with notes at the
// call, at the views on the way and at the backward that needs the saved
// tensor (as for a helper's write into module state).

#include <torch/torch.h>

static void floorGate(torch::Tensor gate, double floor) { gate.clamp_(floor, 1.0); }

static torch::Tensor forgetPart(const torch::Tensor &gates, int64_t hidden) {
  return gates.narrow(1, 0, hidden);
}

void PositiveHelperWritesViewOfSavedResult(const torch::Tensor &input) {
  auto w = torch::rand({4, 8}, torch::requires_grad());
  auto gates = torch::sigmoid(input.matmul(w));
  auto forget = forgetPart(gates, 2);
  floorGate(forget, 0.3);
  // Not this check's: the write goes through a view of the saved tensor,
  // which libtorch-inplace-on-view reports (its saved-tensors.cpp); here
  // it is a negative.
  //
  //
  //
  auto loss = (forget * 2).sum();
  loss.backward();
}

void PositiveHelperWritesSavedResult() {
  auto x = torch::rand({3}, torch::requires_grad());
  auto y = x.exp();
  floorGate(y, 0.5);
  // CHECK-NOTES: :[[@LINE-25]]:64: warning: 'clamp_' writes in place into local 'y', which 'exp' saved for backward
  // CHECK-NOTES: :[[@LINE-2]]:3: note: 'floorGate' is called here
  // CHECK-NOTES: :[[@LINE-27]]:64: note: 'floorGate' writes its parameter 'gate' in place here
  // CHECK-NOTES: :[[@LINE+2]]:3: note: the backward that needs it runs here
  // CHECK-NOTES: :[[@LINE-6]]:14: note: 'exp' saves its result for backward here
  y.sum().backward();
}

// Near-misses: the helper writes a clone, or the backward comes first.
void NegativeHelperWritesClone() {
  auto x = torch::rand({3}, torch::requires_grad());
  auto y = x.exp();
  floorGate(y.clone(), 0.5);
  y.sum().backward();
}

void NegativeBackwardBeforeTheHelper() {
  auto x = torch::rand({3}, torch::requires_grad());
  auto y = x.exp();
  y.sum().backward();
  floorGate(y, 0.5);
}

// A module's forward returning a std::tuple, unpacked by a structured
// binding: the name bound to the element holds what the forward saved (Note
// [Saved by a function that returns it]). A no-grad guard does not make the
// write a parameter update: a saved result is no leaf.
struct ActorCriticImpl : torch::nn::Module {
  ActorCriticImpl() { pi = register_module("pi", torch::nn::Linear(4, 2)); }
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor &x) {
    auto h = pi(x);
    return {torch::sigmoid(h), h * 2};
  }
  torch::nn::Linear pi{nullptr};
};
TORCH_MODULE(ActorCritic);

void PositiveTupleElementMixedUnderNoGrad(ActorCritic &ac, const torch::Tensor &obs) {
  auto [probs, value] = ac->forward(obs);
  {
    torch::NoGradGuard no_grad;
    probs.mul_(0.9);
    // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'mul_' writes in place into tensor 'probs', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
    // CHECK-NOTES: :[[@LINE-5]]:29: note: 'forward' returns what 'sigmoid' saved for backward
    // CHECK-NOTES: :[[@LINE-13]]:13: note: 'sigmoid' saves its result for backward here
  }
  (probs * value).mean().backward();
}

void PositiveResultClampedUnderNoGrad(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto p = torch::sigmoid(x.matmul(w));
  {
    torch::NoGradGuard no_grad;
    p.mul_(0.9);
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'mul_' writes in place into local 'p', which 'sigmoid' saved for backward
    // CHECK-NOTES: :[[@LINE-5]]:12: note: 'sigmoid' saves its result for backward here
  }
  p.sum().backward();
}

// Near-misses: the element mixed after the backward, the other element
// (which saved nothing) written, and a parameter updated under the guard.
void NegativeTupleElementAfterBackward(ActorCritic &ac, const torch::Tensor &obs) {
  auto [probs, value] = ac->forward(obs);
  (probs * value).mean().backward();
  torch::NoGradGuard no_grad;
  probs.mul_(0.9);
}

void NegativeUnsavedElement(ActorCritic &ac, const torch::Tensor &obs) {
  auto [probs, value] = ac->forward(obs);
  value.mul_(0.5);
  (probs * 2).mean().backward();
}

void NegativeParameterUpdateUnderNoGrad(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto y = x.matmul(w);
  y.sum().backward();
  torch::NoGradGuard no_grad;
  w.sub_(w.grad() * 0.1);
}
