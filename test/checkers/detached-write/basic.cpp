// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

#include <torch/torch.h>

// Positive: .data() writes into a tensor the graph still needs.

void PositiveDataOfSavedResult(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}, torch::TensorOptions().requires_grad(true));
  auto h = torch::relu(x.matmul(w));
  h.data().clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'clamp_' writes through 'data()' into local 'h', which 'relu' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  h.sum().backward();
}

void PositiveDataOfLeafUsedInGraph(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  w.data().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'zero_' writes through 'data()' into local 'w', which 'matmul' may have saved for backward; 'data()' does not share the version counter
  loss.backward();
}

struct Net : torch::nn::Module {
  torch::Tensor weight;
  torch::Tensor forward(const torch::Tensor &x) { return x.matmul(weight); }
  void PositiveParameterInGraph(const torch::Tensor &x, const torch::Tensor &y) {
    auto out = x.matmul(weight);
    weight.data().copy_(y);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'copy_' writes through 'data()' into member 'weight', which 'matmul' may have saved for backward
    out.sum().backward();
  }
};

void PositiveModuleOutput(torch::nn::Linear &fc, const torch::Tensor &x) {
  auto probs = torch::relu(fc->forward(x));
  probs.data().clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'clamp_' writes through 'data()' into local 'probs', which 'relu' saved for backward
  probs.sum().backward();
}

// Positive: detach() where a copy was plainly meant.

void PositiveDetachThenReadAfter(const torch::Tensor &logits) {
  auto w = torch::randn({4}, torch::TensorOptions().requires_grad(true));
  auto scores = torch::sigmoid(logits.mul(w));
  auto d = scores.detach();
  // CHECK-FIXES: auto d = scores.detach().clone();
  d.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'mul_' writes through 'detach()' into local 'scores', which 'sigmoid' saved for backward; 'detach()' shares the storage and the version counter, so backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation'
  scores.sum().backward();
}

torch::Tensor PositiveDetachOfInput(const torch::Tensor &x) {
  auto d = x.detach();
  // CHECK-FIXES: auto d = x.detach().clone();
  d.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'mul_' writes through 'detach()' into parameter 'x'; 'detach()' shares the storage, it does not copy, so the caller's tensor changes too
  return d;
}

float PositiveDetachBoundReadAfter() {
  auto x = torch::rand({3});
  auto d = x.detach();
  d.zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'zero_' writes through 'detach()' into local 'x'; 'detach()' shares the storage, it does not copy, so 'x' changes too, and is read afterwards
  // CHECK-FIXES: {{^}}  auto d = x.detach().clone();{{$}}
  return x.sum().item<float>();
}

// A statement that does nothing but write through a temporary detach()
// writes the tensor on purpose (Note [Statements that only write through
// detach()]): reading it afterwards is what the statement was for.
float NegativeDetachInlineReadAfter() {
  auto x = torch::rand({3});
  x.detach().zero_();
  return x.sum().item<float>();
}

torch::Tensor PositiveDetachResultKept(const torch::Tensor &x) {
  torch::Tensor z = x.detach().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'zero_' writes through 'detach()' into parameter 'x'
  // CHECK-FIXES: torch::Tensor z = x.detach().clone().zero_();
  return z;
}

// Negative: no operation saved the written tensor. `mul` saves its inputs,
// not its result, and `sum` saves nothing; what remains is the detached
// write into a tensor that is read afterwards.

void NegativeDataOfUnsavedResult(const torch::Tensor &logits) {
  auto w = torch::randn({4}, torch::TensorOptions().requires_grad(true));
  auto scores = logits.mul(w);
  scores.data().mul_(2);
  scores.sum().backward();
  auto loss = (logits + w).sum();
  w.data().zero_();
  loss.backward();
}

void PositiveDetachOfUnsavedResultReadAfter(const torch::Tensor &logits) {
  auto w = torch::randn({4}, torch::TensorOptions().requires_grad(true));
  auto scores = logits.mul(w);
  auto d = scores.detach();
  d.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'mul_' writes through 'detach()' into local 'scores'; 'detach()' shares the storage, it does not copy, so 'scores' changes too, and is read afterwards
  // CHECK-FIXES: {{^}}  auto d = scores.detach().clone();{{$}}
  scores.sum().backward();
}

// SAM's perturbation of the parameters, read again by the next forward,
// after the backward that needed them.
void NegativePerturbationReadByTheNextForward(const torch::Tensor &x) {
  auto w = torch::randn({4}, torch::TensorOptions().requires_grad(true));
  (x * w).sum().backward();
  w.detach().add_(w.grad() * 0.05);
  (x * w).sum().backward();
}

// Negative: the parameter-update idiom.

void NegativeNoGradGuard(Net &net, float lr) {
  torch::NoGradGuard no_grad;
  net.weight.data().sub_(net.weight.grad().mul(lr));
  net.weight.sub_(net.weight.grad().mul(lr));
}

void NegativeOptimizerLoop(torch::nn::Module &model, double lr) {
  for (auto &p : model.parameters())
    p.data().add_(p.grad().mul(-lr));
  auto params = model.parameters();
  for (auto &p : params)
    p.detach().mul_(0.9);
}

void NegativeGuardInEnclosingBlock(Net &net, const torch::Tensor &x) {
  auto loss = x.matmul(net.weight).sum();
  {
    torch::NoGradGuard guard;
    if (true)
      net.weight.data().zero_();
  }
  loss.backward();
}

// Negative: nothing needs the old values.

void NegativeAfterBackward(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}, torch::TensorOptions().requires_grad(true));
  auto loss = x.matmul(w).sum();
  loss.backward();
  w.data().sub_(w.grad().mul(0.1));
}

void NegativeNoGraph(const torch::Tensor &x) {
  auto buffer = torch::zeros({4});
  buffer.data().copy_(x);
  auto local = torch::rand({3});
  local.detach().zero_();
}

void NegativeDetachedLeaf(const torch::Tensor &x) {
  auto w = x.detach().requires_grad_();
  auto copy = x.detach().clone();
  copy.mul_(2);
}

void NegativeOutputParameter(torch::Tensor &out) { out.detach().zero_(); }

void NegativeInitWeights(Net &net) { net.weight.data().normal_(0, 0.02); }

// Positive: the parameter is saved inside forward() (Note [Module state
// written before backward], module-state.cpp).

void PositiveModuleCall(Net &net, const torch::Tensor &x) {
  auto out = net.forward(x);
  net.weight.data().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'zero_' writes through 'data()' into member 'weight' of 'net' between the forward of 'net' that saved it and the backward that needs it
  out.sum().backward();
}

// A variable rebound to its own detached handle: reading it afterwards reads
// what was written on purpose; another holder of the old handle changes too.
float NegativeReboundToItsDetach(const torch::Tensor &x) {
  torch::Tensor h = torch::tanh(x);
  h = h.detach();
  h.mul_(0.5);
  return h.sum().item<float>();
}

float PositiveOldHandleKept(const torch::Tensor &x) {
  torch::Tensor h = torch::tanh(x);
  torch::Tensor old = h;
  h = h.detach();
  h.mul_(0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'mul_' writes through 'detach()' into local 'h'; 'detach()' shares the storage, it does not copy, so 'old' changes too, and is read afterwards [libtorch-detached-write]
  return old.sum().item<float>();
}
