// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

// A module's graph built by a method other than forward (Note [Methods that
// build a graph]): what the method saved of the module's state is needed by
// the backward that starts from its result, and a member that holds an
// operation's result may be written in place with grad on.

#include <torch/torch.h>

#include <vector>

class RecurrentPolicy : public torch::nn::Module {
public:
  RecurrentPolicy() {
    in_ = register_module("in", torch::nn::Linear(6, 8));
    pi_ = register_module("pi", torch::nn::Linear(8, 3));
    h_ = torch::zeros({4, 8});
  }
  torch::Tensor &hidden() { return h_; }
  torch::Tensor step(const torch::Tensor &obs) {
    h_ = torch::tanh(in_->forward(obs) + h_);
    return pi_->forward(h_);
  }
  torch::Tensor act(const torch::Tensor &obs) {
    torch::NoGradGuard no_grad;
    h_ = torch::tanh(in_->forward(obs) + h_);
    return pi_->forward(h_);
  }

private:
  torch::nn::Linear in_{nullptr}, pi_{nullptr};
  torch::Tensor h_;
};

// The rollout resets finished episodes' rows through the getter; tanh saved
// its result, which the rollout's backward needs.
void PositiveResetThroughGetter(RecurrentPolicy &policy, const torch::Tensor &obs,
                                const torch::Tensor &done) {
  std::vector<torch::Tensor> logits;
  for (int t = 0; t < 3; ++t) {
    logits.push_back(policy.step(obs));
    policy.hidden().masked_fill_(done, 0.0);
    // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'masked_fill_' writes into member 'h_' of 'policy' between the call 'policy.step()' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
    // CHECK-NOTES: :[[@LINE-3]]:29: note: the call 'policy.step()' saves it for backward here
  }
  auto loss = torch::stack(logits).mean();
  loss.backward();
  // CHECK-NOTES: :[[@LINE-1]]:3: note: the backward that needs it runs here
}

// An encoder whose public cache holds what exp computed; the caller scales
// the cache in place before the backward.
struct Encoder : torch::nn::Module {
  Encoder() { proj = register_module("proj", torch::nn::Linear(4, 4)); }
  torch::Tensor encode(const torch::Tensor &x) {
    cache = proj->forward(x).exp();
    return cache.sum();
  }
  torch::nn::Linear proj{nullptr};
  torch::Tensor cache;
};

void PositivePublicCache(Encoder &encoder, const torch::Tensor &x) {
  auto loss = encoder.encode(x);
  encoder.cache.mul_(0.5);
  // CHECK-NOTES: :[[@LINE-1]]:17: warning: 'mul_' writes into member 'cache' of 'encoder' between the call 'encoder.encode()' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-3]]:23: note: the call 'encoder.encode()' saves it for backward here
  loss.backward();
  // CHECK-NOTES: :[[@LINE-1]]:3: note: the backward that needs it runs here
}

// A registered parameter written with grad on is refused by autograd at once
// (a leaf that requires grad): not this check's hazard.
struct Scaled : torch::nn::Module {
  Scaled() { scale = register_parameter("scale", torch::ones({4})); }
  torch::Tensor apply(const torch::Tensor &x) { return (x * scale).exp(); }
  torch::Tensor scale;
};

void NegativeParameterWrittenWithGradOn(Scaled &m, const torch::Tensor &x) {
  auto loss = m.apply(x).sum();
  m.scale.mul_(0.5);
  loss.backward();
}

// Near-misses: the reset after the backward, a rollout that does not build
// a graph, and a reset that rebinds the state out of place.
void NegativeResetAfterBackward(RecurrentPolicy &policy, const torch::Tensor &obs,
                                const torch::Tensor &done) {
  auto loss = policy.step(obs).mean();
  loss.backward();
  policy.hidden().masked_fill_(done, 0.0);
}

void NegativeNoGradRollout(RecurrentPolicy &policy, const torch::Tensor &obs,
                           const torch::Tensor &done) {
  auto out = policy.act(obs);
  policy.hidden().masked_fill_(done, 0.0);
  auto loss = (out * 2).mean();
  loss.backward();
}

void NegativeOutOfPlaceReset(RecurrentPolicy &policy, const torch::Tensor &obs,
                             const torch::Tensor &done) {
  auto loss = policy.step(obs).mean();
  policy.hidden() = policy.hidden().masked_fill(done, 0.0);
  loss.backward();
}
