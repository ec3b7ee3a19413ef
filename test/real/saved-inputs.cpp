// Ground truth for Note [A library module saves its input], Note [Custom
// autograd functions] and a helper's write of its argument's member (Note
// [Members of an argument written by a helper]), on the real torch::nn::Linear
// and torch::autograd::Function.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %real_torch

#include <torch/torch.h>

struct Batch {
  torch::Tensor obs, ret;
};

void clipObs(Batch &b, double limit) { b.obs.data().clamp_(-limit, limit); }

void PositiveCriticInputClipped(torch::nn::Linear critic, Batch batch) {
  auto value_loss = (critic(batch.obs).squeeze(1) - batch.ret).pow(2).mean();
  clipObs(batch, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'clipObs' writes through 'data()' into member 'obs', which 'critic' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  value_loss.backward();
}

void PositiveInputWrittenInPlace(torch::nn::Linear critic) {
  auto obs = torch::randn({4, 6});
  auto value = critic(obs).sum();
  obs.relu_();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'relu_' writes in place into local 'obs', which 'critic' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  value.backward();
}

struct QuantLinearFn : torch::autograd::Function<QuantLinearFn> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor x, torch::Tensor w) {
    ctx->save_for_backward({x, w});
    return x.mm(w.t());
  }
  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    return {grads[0].mm(saved[1]), grads[0].t().mm(saved[0])};
  }
};

void PositiveSnappedBeforeBackward(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = QuantLinearFn::apply(x, w).sum();
  w.data().round_();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'round_' writes through 'data()' into local 'w', which 'QuantLinearFn' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  loss.backward();
}

void NegativeClippedAfterBackward(torch::nn::Linear critic, Batch batch) {
  auto value_loss = critic(batch.obs).sum();
  value_loss.backward();
  clipObs(batch, 1.0);
}
