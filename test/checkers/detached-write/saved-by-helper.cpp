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
  // CHECK-NOTES: :[[@LINE-11]]:64: warning: 'clamp_' writes in place into local 'gates', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:3: note: 'floorGate' is called here
  // CHECK-NOTES: :[[@LINE-4]]:17: note: view of local 'gates' created here by 'forgetPart'
  // CHECK-NOTES: :[[@LINE-14]]:64: note: 'floorGate' writes its parameter 'gate' in place here
  // CHECK-NOTES: :[[@LINE+3]]:3: note: the backward that needs it runs here
  // CHECK-NOTES: :[[@LINE-8]]:16: note: 'sigmoid' saves its result for backward here
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
