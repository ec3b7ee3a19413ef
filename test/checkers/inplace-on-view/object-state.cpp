// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

// Writes into views of object state (Note [Writes into object state]): an
// object updating its own members is quiet; a view that was handed out, a
// view that escaped before the write, and a registered parameter written
// where autograd records it are reported.

#include <torch/torch.h>

#include <vector>

// Negative: a rollout buffer filling and shifting slices of its own members.
class RolloutBuffer {
public:
  void insert(const torch::Tensor &obs, const torch::Tensor &mask, int step) {
    observations_[step + 1].copy_(obs);
    masks_.select(0, step).copy_(mask);
  }
  void after_update() {
    observations_[0].copy_(observations_[-1]);
    masks_[0].copy_(masks_[-1]);
  }
  void compute_returns(const torch::Tensor &next_value, int steps) {
    returns_[-1] = next_value;
    for (int step = steps - 1; step >= 0; --step)
      returns_[step] = returns_[step + 1] * 0.99 + rewards_[step];
  }
  void NegativeOwnAccessor(int step) { row(step).zero_(); }
  void NegativeMayAliasOfOwnMember() {
    auto flat = rewards_.reshape({-1});
    flat.mul_(0.5);
  }
  torch::Tensor row(int step) { return observations_.select(0, step); }
  // A getter handing out the member itself, not a view of it.
  const torch::Tensor &masks() const { return masks_; }

private:
  torch::Tensor observations_, masks_, returns_, rewards_;
};

// Negative: code that reaches into an object's member on purpose.
struct Storage {
  torch::Tensor frames;
};
void NegativeOtherObjectsMember(Storage &storage, const torch::Tensor &frame) {
  storage.frames.select(0, 0).copy_(frame);
}
void NegativeThroughHandleGetter(RolloutBuffer &buffer) {
  buffer.masks().narrow(0, 0, 1).fill_(1);
}

// Negative: a module's buffer is not a parameter; autograd does not track it.
struct NormalizerImpl : torch::nn::Module {
  NormalizerImpl() { clip = register_buffer("clip", torch::zeros({1})); }
  void average(int n) { clip[0] = clip[0] / n; }
  torch::Tensor clip;
};

// Negative: parameters written under a no-grad guard, and buffers.
void NegativeInitUnderNoGrad(torch::nn::Linear &fc, torch::nn::Module &net) {
  torch::NoGradGuard no_grad;
  fc->weight.narrow(0, 0, 1).fill_(0);
  for (auto &p : net.parameters())
    p.narrow(0, 0, 1).mul_(0.9);
}
void NegativeBuffersLoop(torch::nn::Module &net) {
  for (auto &b : net.buffers())
    b.narrow(0, 0, 1).zero_();
}

// Positive: a view the object handed out, written by its caller.
class FrameStack {
public:
  torch::Tensor latest() { return frames_.select(0, 0); }
  void push(const torch::Tensor &frame) { frames_[0].copy_(frame); }

private:
  torch::Tensor frames_;
};

void PositiveHandedOutView(FrameStack &stack) {
  auto last = stack.latest();
  // CHECK-FIXES: auto last = stack.latest().clone();
  last.zero_();
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'zero_' writes in place to 'last', a view of member 'frames_', which 'latest' returned; the object's state changes too [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-4]]:21: note: view of member 'frames_' created here by 'latest'
}

// Positive: a view that escaped before the object wrote it.
class Staging {
public:
  void PositiveStoredThenWritten() {
    auto row = storage_.select(0, 0);
    pending_.push_back(row);
    row.fill_(0);
    // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'fill_' writes in place to 'row', a view of member 'storage_' after the view is stored in 'pending_'; whoever holds it sees the write
    // CHECK-NOTES: :[[@LINE-3]]:24: note: the view escapes here
    // CHECK-NOTES: :[[@LINE-5]]:25: note: view of member 'storage_' created here by 'select'
  }
  void PositiveKeptThenWritten() {
    auto head = storage_.narrow(0, 0, 2);
    keep(head);
    head.mul_(2);
    // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'mul_' writes in place to 'head', a view of member 'storage_' after the view is passed to 'keep', which keeps it; whoever holds it sees the write
    // CHECK-NOTES: :[[@LINE-3]]:10: note: the view escapes here
    // CHECK-NOTES: :[[@LINE-5]]:26: note: view of member 'storage_' created here by 'narrow'
  }
  void NegativeCopiedOut() {
    auto row = storage_.select(0, 0);
    pending_.push_back(row.clone());
    row.fill_(0);
  }
  void NegativeWrittenBeforeStored() {
    auto row = storage_.select(0, 1);
    row.fill_(0);
    pending_.push_back(row);
  }
  void keep(torch::Tensor t) { saved_ = t; }

private:
  torch::Tensor storage_, saved_;
  std::vector<torch::Tensor> pending_;
};

// Positive: a registered parameter written where autograd records it.
struct ScaleImpl : torch::nn::Module {
  ScaleImpl() { scale = register_parameter("scale", torch::ones({4})); }
  void PositiveParameterView() {
    scale.narrow(0, 0, 1).clamp_(0, 1);
    // CHECK-NOTES: :[[@LINE-1]]:27: warning: 'clamp_' writes in place to a view of member 'scale'; the object's state changes too, and autograd records the write: PyTorch throws 'a view of a leaf Variable that requires grad is being used in an in-place operation' outside a no-grad scope
    // CHECK-NOTES: :[[@LINE-2]]:11: note: view of member 'scale' created here by 'narrow'
  }
  void NegativeParameterViewNoGrad() {
    torch::NoGradGuard guard;
    scale.narrow(0, 0, 1).clamp_(0, 1);
  }
  torch::Tensor scale;
};

void PositiveParameterLoop(torch::nn::Module &net) {
  for (auto &p : net.parameters())
    p.narrow(0, 0, 1).mul_(0.9);
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'mul_' writes in place to a view of member 'p'; the object's state changes too, and autograd records the write
  // CHECK-NOTES: :[[@LINE-2]]:7: note: view of member 'p' created here by 'narrow'
}

// Positive: an expanded view of object state overlaps itself.
struct Grid {
  torch::Tensor row_;
  void PositiveExpandedMember() {
    row_.expand({4, 3}).add_(1);
    // CHECK-NOTES: :[[@LINE-1]]:25: warning: 'add_' writes in place to an expanded view of member 'row_', whose elements share memory
    // CHECK-NOTES: :[[@LINE-2]]:10: note: expanded view of member 'row_' created here by 'expand'
  }
};
