// Ground truth: the same behaviours against Debian's real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %real_torch

#include <torch/torch.h>

void PositiveDataOfSavedResult(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}, torch::requires_grad());
  auto h = torch::sigmoid(x.matmul(w));
  h.data().clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'clamp_' writes through 'data()' into local 'h', which autograd may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  h.sum().backward();
}

struct Net : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale;
  void PositiveParameterInGraph(const torch::Tensor &x) {
    auto out = x.mul(scale);
    scale.data().zero_();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'zero_' writes through 'data()' into member 'scale', which requires grad and is already used in the graph
    out.sum().backward();
  }
};

torch::Tensor PositiveDetachOfInput(const torch::Tensor &x) {
  auto d = x.detach();
  // CHECK-FIXES: auto d = x.detach().clone();
  d.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'mul_' writes through 'detach()' into parameter 'x'; 'detach()' shares the storage, it does not copy, so the caller's tensor changes too
  return d;
}

void NegativeParameterUpdate(Net &net, double lr) {
  torch::NoGradGuard no_grad;
  for (auto &p : net.parameters())
    p.data().add_(p.grad(), -lr);
  net.scale.sub_(net.scale.grad() * lr);
}

void NegativeOptimizerLoop(torch::nn::Module &model, double lr) {
  for (auto &p : model.parameters())
    p.data().sub_(p.grad() * lr);
}

void NegativeDetachedLeaf(const torch::Tensor &x) {
  auto w = x.detach().requires_grad_();
  auto copy = x.detach().clone();
  copy.mul_(2);
}
