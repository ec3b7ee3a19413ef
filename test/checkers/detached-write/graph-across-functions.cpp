// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

// A graph that crosses a function boundary: a function that builds a graph,
// writes a tensor one of its operations saved and returns the graph, which
// its caller differentiates (Note [A graph returned to the caller]); and a
// function that returns what one of its operations saved, which its caller
// writes (Note [Saved by a function that returns it]).

#include <torch/torch.h>

#include <tuple>
#include <utility>

// A returned tensor, differentiated where the caller's variable is.
static torch::Tensor flooredGate(const torch::Tensor &x, const torch::Tensor &w) {
  auto gate = torch::sigmoid(x.matmul(w));
  gate.clamp_(0.1, 1.0);
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'clamp_' writes in place into local 'gate', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-3]]:15: note: 'sigmoid' saves its result for backward here
  // CHECK-NOTES: :[[@LINE+2]]:3: note: the graph is returned here
  // CHECK-NOTES: :[[@LINE+6]]:12: note: 'flooredGate' is called here
  return gate * 2;
}

void PositiveBackwardFromTheResult(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto y = flooredGate(x, w);
  auto loss = y.sum();
  loss.backward();
  // CHECK-NOTES: :[[@LINE-1]]:3: note: the backward that needs it runs here
}

// A hand-written cell: the gates come back as views in a struct, the cell
// caps one in place and hands its state to a caller that unrolls it with
// std::tie and differentiates the last hidden state.
struct Gates {
  torch::Tensor keep;
  torch::Tensor write;
};

static Gates splitGates(const torch::Tensor &x, const torch::Tensor &w) {
  auto s = torch::sigmoid(x.matmul(w));
  return {s.narrow(1, 0, 2), s.narrow(1, 2, 2)};
}

class CappedCell {
public:
  CappedCell() : w_(torch::rand({4, 4}).requires_grad_()) {}

  std::pair<torch::Tensor, torch::Tensor> step(const torch::Tensor &x,
                                               const torch::Tensor &c) {
    Gates g = splitGates(x, w_);
    g.keep.clamp_(0.0, 0.9);
    // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'clamp_' writes in place into tensor 'keep', which 'sigmoid' saved for backward
    // CHECK-NOTES: :[[@LINE-3]]:15: note: 'splitGates' returns what 'sigmoid' saved for backward
    // CHECK-NOTES: :[[@LINE-14]]:12: note: 'sigmoid' saves its result for backward here
    auto c2 = g.keep * c + g.write;
    return {c2 * 2, c2};
    // CHECK-NOTES: :[[@LINE-1]]:5: note: the graph is returned here
    // CHECK-NOTES: :[[@LINE+12]]:27: note: 'step' is called here
  }

private:
  torch::Tensor w_;
};

void PositiveUnrolledWithTie() {
  CappedCell cell;
  auto h = torch::zeros({2, 2});
  auto c = torch::zeros({2, 2});
  for (int t = 0; t < 3; ++t)
    std::tie(h, c) = cell.step(torch::rand({2, 4}), c);
  h.sum().backward();
  // CHECK-NOTES: :[[@LINE-1]]:3: note: the backward that needs it runs here
}

// A structured binding, and a backward in the same expression.
static std::tuple<torch::Tensor, torch::Tensor> scoreAndGate(const torch::Tensor &x,
                                                            const torch::Tensor &w) {
  auto score = x.matmul(w).exp();
  score.mul_(0.5);
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'mul_' writes in place into local 'score', which 'exp' saved for backward
  // CHECK-NOTES: :[[@LINE-3]]:28: note: 'exp' saves its result for backward here
  // CHECK-NOTES: :[[@LINE+2]]:3: note: the graph is returned here
  // CHECK-NOTES: :[[@LINE+6]]:25: note: 'scoreAndGate' is called here
  return {score, score.sum()};
}

void PositiveStructuredBinding(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto [score, total] = scoreAndGate(x, w);
  total.backward();
  // CHECK-NOTES: :[[@LINE-1]]:3: note: the backward that needs it runs here
}

static torch::Tensor halvedExp(const torch::Tensor &x) {
  auto e = x.exp();
  e.mul_(0.5);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'mul_' writes in place into local 'e', which 'exp' saved for backward
  // CHECK-NOTES: :[[@LINE-3]]:14: note: 'exp' saves its result for backward here
  // CHECK-NOTES: :[[@LINE+2]]:3: note: the graph is returned here
  // CHECK-NOTES: :[[@LINE+6]]:3: note: 'halvedExp' is called here
  return e;
}

void PositiveBackwardInTheSameExpression() {
  auto x = torch::rand({3}, torch::requires_grad());
  halvedExp(x).sum().backward();
  // CHECK-NOTES: :[[@LINE-1]]:3: note: the backward that needs it runs here
}

// The save in a function that returns it; the write and the backward in
// the caller.
static torch::Tensor gateOf(const torch::Tensor &x, const torch::Tensor &w) {
  return torch::sigmoid(x.matmul(w));
}

void PositiveCallerWritesWhatTheHelperSaved(const torch::Tensor &x,
                                            const torch::Tensor &mask) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto gate = gateOf(x, w);
  gate.masked_fill_(mask, 0);
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'masked_fill_' writes in place into local 'gate', which 'sigmoid' saved for backward
  // CHECK-NOTES: :[[@LINE-3]]:15: note: 'gateOf' returns what 'sigmoid' saved for backward
  // CHECK-NOTES: :[[@LINE-10]]:10: note: 'sigmoid' saves its result for backward here
  (gate * x).sum().backward();
}

// Near-misses.

// The caller differentiates nothing: an evaluation pass.
static torch::Tensor flooredScore(const torch::Tensor &x, const torch::Tensor &w) {
  auto s = torch::sigmoid(x.matmul(w));
  s.clamp_(0.1, 1.0);
  return s;
}

float NegativeCallerWithoutBackward(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  return flooredScore(x, w).sum().item<float>();
}

// The caller runs it under a NoGradGuard: nothing is saved.
static torch::Tensor flooredProbe(const torch::Tensor &x, const torch::Tensor &w) {
  auto s = torch::sigmoid(x.matmul(w));
  s.clamp_(0.1, 1.0);
  return s;
}

void NegativeCallerWithoutGrad(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  {
    torch::NoGradGuard no_grad;
    auto y = flooredProbe(x, w);
  }
  (x.matmul(w)).sum().backward();
}

// The caller's backward starts from another tensor.
static torch::Tensor flooredAux(const torch::Tensor &x, const torch::Tensor &w) {
  auto s = torch::sigmoid(x.matmul(w));
  s.clamp_(0.1, 1.0);
  return s;
}

void NegativeBackwardFromAnotherTensor(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto aux = flooredAux(x, w);
  auto main_loss = x.matmul(w).sum();
  main_loss.backward();
}

// The function writes a clone of what it saved.
static torch::Tensor clonedGate(const torch::Tensor &x, const torch::Tensor &w) {
  auto gate = torch::sigmoid(x.matmul(w)).clone();
  gate.clamp_(0.1, 1.0);
  return gate;
}

void NegativeCloneWritten(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  clonedGate(x, w).sum().backward();
}

// The helper returns a clone of the saved result, or computes it without
// grad; or nothing of the call is part of a graph.
static torch::Tensor clonedProbs(const torch::Tensor &x, const torch::Tensor &w) {
  return torch::sigmoid(x.matmul(w)).clone();
}

static torch::Tensor frozenProbs(const torch::Tensor &x, const torch::Tensor &w) {
  torch::NoGradGuard no_grad;
  return torch::sigmoid(x.matmul(w));
}

static torch::Tensor squash(const torch::Tensor &x) { return torch::sigmoid(x); }

void NegativeHelperSavesNothingTheCallerWrites(const torch::Tensor &x,
                                               const torch::Tensor &mask) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto p = clonedProbs(x, w);
  p.masked_fill_(mask, 0);
  auto q = frozenProbs(x, w);
  q.masked_fill_(mask, 0);
  auto features = squash(x);
  features.masked_fill_(mask, 0);
  (p * q * features * x.matmul(w)).sum().backward();
}

// A member made to require grad, written by the cell's own update after the
// caller's backward: the write is a parameter update.
class Scaler {
public:
  Scaler() : w_(torch::ones({4})) { w_.requires_grad_(); }
  torch::Tensor apply(const torch::Tensor &x) { return (x * w_).exp(); }
  void update() {
    torch::NoGradGuard no_grad;
    w_.sub_(w_.grad() * 0.1);
  }

private:
  torch::Tensor w_;
};

void NegativeUpdateAfterBackward(const torch::Tensor &x) {
  Scaler scaler;
  scaler.apply(x).sum().backward();
  scaler.update();
}


// The graph returned on through callers with no backward of their own
// (Note [A graph returned through several callers]): a hand-written softmax
// normalising what `exp` saved, inside a loss that a training step
// differentiates.
static torch::Tensor handSoftmax(const torch::Tensor &logits) {
  auto p = logits.exp();
  p.div_(p.sum());
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'div_' writes in place into local 'p', which 'exp' saved for backward
  // CHECK-NOTES: :[[@LINE-3]]:19: note: 'exp' saves its result for backward here
  // CHECK-NOTES: :[[@LINE+2]]:3: note: the graph is returned here
  // CHECK-NOTES: :[[@LINE+7]]:16: note: 'handSoftmax' is called here
  return p;
}

static torch::Tensor distillLoss(const torch::Tensor &student,
                                 const torch::Tensor &teacher) {
  auto target = handSoftmax(teacher).detach();
  auto probs = handSoftmax(student);
  return (target * probs.log()).mean() * -1.0;
}

static torch::Tensor scaledDistill(const torch::Tensor &student,
                                   const torch::Tensor &teacher) {
  return distillLoss(student, teacher) * 4.0;
  // CHECK-NOTES: :[[@LINE-1]]:10: note: 'distillLoss' returns what it computes from it, and is called here
}

void PositiveReturnedThroughTwoCallers(const torch::Tensor &x,
                                       const torch::Tensor &teacher) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto loss = scaledDistill(x.matmul(w), teacher);
  // CHECK-NOTES: :[[@LINE-1]]:15: note: 'scaledDistill' returns what it computes from it, and is called here
  loss.backward();
  // CHECK-NOTES: :[[@LINE-1]]:3: note: the backward that needs it runs here
}

// Near-misses: the middle caller detaches what it returns, the outer one
// runs no backward, or passes nothing that is part of a graph.
static torch::Tensor roughSoftmax(const torch::Tensor &logits) {
  auto p = logits.exp();
  p.div_(p.sum());
  return p;
}

static torch::Tensor pseudoLabels(const torch::Tensor &logits) {
  return roughSoftmax(logits).detach();
}

void NegativeMiddleCallerDetaches(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto labels = pseudoLabels(x.matmul(w));
  (x.matmul(w) * labels).sum().backward();
}

static torch::Tensor evalSoftmax(const torch::Tensor &logits) {
  auto p = logits.exp();
  p.div_(p.sum());
  return p;
}

static torch::Tensor confidence(const torch::Tensor &logits) {
  return evalSoftmax(logits).max();
}

float NegativeOuterCallerWithoutBackward(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  return confidence(x.matmul(w)).mean().item<float>();
}

static torch::Tensor inputSoftmax(const torch::Tensor &logits) {
  auto p = logits.exp();
  p.div_(p.sum());
  return p;
}

static torch::Tensor weightedInput(const torch::Tensor &x) {
  return x * inputSoftmax(x);
}

void NegativeNothingOfTheGraphPassed(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto features = weightedInput(x);
  (features.matmul(w)).sum().backward();
}

// A function object's operator() is such a function: the graph-autoencoder
// decoder removes self-loops from the output sigmoid saved.
struct InnerProductDecoder {
  torch::Tensor operator()(const torch::Tensor &z) const {
    auto adj = torch::sigmoid(z.matmul(z.t()));
    adj.diagonal().zero_();
    // Not this check's: the write goes through a view of the saved tensor,
    // which libtorch-inplace-on-view reports (its saved-tensors.cpp); here
    // it is a negative.
    //
    //
    //
    return adj;
  }
};

void PositiveFunctionObjectDifferentiated() {
  auto z = torch::randn({4, 4}, torch::requires_grad());
  const InnerProductDecoder decode;
  auto loss = decode(z).sum();
  loss.backward();
}

// An operator() never differentiated by its callers.
struct Thresholder {
  torch::Tensor operator()(const torch::Tensor &logits) const {
    auto probs = torch::sigmoid(logits);
    probs.diagonal().zero_();
    return probs;
  }
};

float NegativeFunctionObjectUnderNoGrad(const torch::Tensor &logits) {
  torch::NoGradGuard no_grad;
  const Thresholder threshold;
  return threshold(logits).sum().item<float>();
}

// A function object that writes its saved output itself, not a view of it.
struct ClampedDecoder {
  torch::Tensor operator()(const torch::Tensor &z) const {
    auto adj = torch::sigmoid(z.matmul(z.t()));
    adj.clamp_(1e-6, 1.0);
    // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'clamp_' writes in place into local 'adj', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
    // CHECK-NOTES: :[[@LINE-3]]:16: note: 'sigmoid' saves its result for backward here
    // CHECK-NOTES: :[[@LINE+3]]:5: note: the graph is returned here
    // CHECK-NOTES: :[[@LINE+9]]:3: note: 'decode' is called here
    // CHECK-NOTES: :[[@LINE+8]]:3: note: the backward that needs it runs here
    return adj;
  }
};

void PositiveFunctionObjectWritesItsSavedOutput(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  const ClampedDecoder decode;
  decode(x.matmul(w)).sum().backward();
}
