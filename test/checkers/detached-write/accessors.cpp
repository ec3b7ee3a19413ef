// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

#include <torch/torch.h>

// Note [Members handed out by an accessor]: a method that returns an alias
// of the module's own parameter hands out that parameter; writing what it
// returned between the forward and the backward writes saved state.

struct ArcImpl : torch::nn::Module {
  ArcImpl() { weight_ = register_parameter("weight", torch::randn({4, 4})); }
  torch::Tensor centres() const { return weight_.detach(); }
  torch::Tensor raw() { return weight_.data(); }
  torch::Tensor snapshot() const { return weight_.detach().clone(); }
  torch::Tensor forward(const torch::Tensor &x) { return x * weight_; }
  torch::Tensor weight_;
};
TORCH_MODULE(Arc);

void PositiveRenormThroughAnAccessor(Arc head, const torch::Tensor &x) {
  auto loss = head->forward(x).sum();
  auto centres = head->centres();
  centres.div_(2);
  // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'div_' writes through 'detach()' into member 'weight_' of 'head' between the forward of 'head' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-4]]:21: note: the forward of 'head' saves it for backward here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs it runs here
  loss.backward();
}

void PositiveClampThroughData(Arc head, const torch::Tensor &x) {
  auto loss = head->forward(x).sum();
  head->raw().clamp_(-1, 1);
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'clamp_' writes through 'data()' into member 'weight_' of 'head' between the forward of 'head' that saved it and the backward that needs it; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-3]]:21: note: the forward of 'head' saves it for backward here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs it runs here
  loss.backward();
}

// A copy is the caller's own.
void NegativeSnapshotAccessor(Arc head, const torch::Tensor &x) {
  auto loss = head->forward(x).sum();
  auto copy = head->snapshot();
  copy.div_(2);
  loss.backward();
}

// After the backward.
void NegativeRenormAfterBackward(Arc head, const torch::Tensor &x) {
  auto loss = head->forward(x).sum();
  loss.backward();
  head->centres().div_(2);
}
