// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch
// A library module's forward saves its input for the gradient of its weight
// (Note [A library module saves its input]), and a helper's write of a
// member of its argument reaches a tensor the caller saved (Note [Members of
// an argument written by a helper]).

#include <torch/torch.h>

struct Batch {
  torch::Tensor obs, ret;
};

void clipObs(Batch &b, double limit) { b.obs.data().clamp_(-limit, limit); }
void clipRows(torch::Tensor &o) { o.data().clamp_(-1, 1); }

// Observations clipped through data() after the critic's forward.
void PositiveLinearInputClampedThroughData(torch::nn::Linear critic) {
  auto obs = torch::randn({4, 6});
  auto value = critic(obs).sum();
  obs.data().clamp_(-1, 1);
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'clamp_' writes through 'data()' into local 'obs', which 'critic' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:7: note: detached view of local 'obs' created here by 'data'
  // CHECK-NOTES: :[[@LINE-4]]:16: note: 'critic' saves 'obs' for backward here
  value.backward();
}

// The input written in place: backward throws.
void PositiveForwardInputWrittenInPlace(torch::nn::Linear critic,
                                        torch::Tensor obs) {
  auto value = critic->forward(obs);
  obs.mul_(2);
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'mul_' writes in place into parameter 'obs', which 'critic' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-3]]:24: note: 'critic' saves 'obs' for backward here
  value.sum().backward();
}

// A helper clips a member of the batch it is given.
void PositiveHelperWritesMember(torch::nn::Linear critic, Batch batch) {
  auto loss = critic(batch.obs).sum();
  clipObs(batch, 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clipObs' writes through 'data()' into member 'obs', which 'critic' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-29]]:46: note: detached view of member 'obs' created here by 'data'
  // CHECK-NOTES: :[[@LINE-30]]:53: note: 'clipObs' writes member 'obs' of its argument in place here
  // CHECK-NOTES: :[[@LINE-5]]:15: note: 'critic' saves 'obs' for backward here
  loss.backward();
}

// A helper clips the tensor it is given.
void PositiveHelperWritesInput(torch::nn::Linear critic) {
  auto obs = torch::randn({4, 6});
  auto loss = critic(obs).sum();
  clipRows(obs);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clipRows' writes through 'data()' into local 'obs', which 'critic' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-40]]:37: note: detached view of local 'obs' created here by 'data'
  // CHECK-NOTES: :[[@LINE-41]]:44: note: 'clipRows' writes its parameter 'o' in place here
  // CHECK-NOTES: :[[@LINE-5]]:15: note: 'critic' saves 'obs' for backward here
  loss.backward();
}

// After the backward, the saved input is no longer needed.
void NegativeAfterBackward(torch::nn::Linear critic) {
  auto obs = torch::randn({4, 6});
  auto value = critic(obs).sum();
  value.backward();
  obs.data().clamp_(-1, 1);
}

// No graph is recorded under a no-grad guard.
void NegativeNoGrad(torch::nn::Linear critic) {
  auto obs = torch::randn({4, 6});
  torch::Tensor value;
  {
    torch::NoGradGuard guard;
    value = critic(obs).sum();
  }
  obs.data().clamp_(-1, 1);
}

// ReLU saves its output, not its input.
void NegativeReluSavesNoInput(torch::nn::ReLU gate, torch::Tensor w) {
  auto obs = torch::randn({4, 6});
  auto loss = (gate(obs) * w).sum();
  obs.mul_(2);
  loss.backward();
}

// Clipped before the forward that saves it.
void NegativeClippedBeforeForward(torch::nn::Linear critic, Batch batch) {
  clipObs(batch, 1.0);
  auto loss = critic(batch.obs).sum();
  loss.backward();
}
