// Ground truth: the same behaviours against Debian's real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %real_torch

#include <torch/torch.h>

#include <functional>
#include <vector>

void PositiveDataOfSavedResult(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}, torch::requires_grad());
  auto h = torch::sigmoid(x.matmul(w));
  h.data().clamp_(0, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'clamp_' writes through 'data()' into local 'h', which 'sigmoid' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  h.sum().backward();
}

struct Net : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor scale;
  void PositiveParameterInGraph(const torch::Tensor &x) {
    auto out = x.mul(scale);
    scale.data().zero_();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'zero_' writes through 'data()' into member 'scale', which 'mul' may have saved for backward
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

// In-place writes into what an operation saved (checks/data/aten-saved-tensors.json;
// runtime/test/saved_tensor_facts_test.cpp calls the same against the library).

void PositiveInPlaceIntoSavedResult() {
  auto x = torch::rand({3}, torch::requires_grad());
  auto y = x.exp();
  y.mul_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'mul_' writes in place into local 'y', which 'exp' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  y.sum().backward();
}

void PositiveInPlaceIntoSavedInput(const torch::Tensor &u,
                                   const torch::Tensor &v) {
  auto w = torch::rand({3, 3}, torch::requires_grad());
  auto a = u.matmul(w);
  auto b = v.matmul(w);
  auto y = a / b;
  b.add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'add_' writes in place into local 'b', which 'div' saved for backward
  y.sum().backward();
}

void PositiveDetachIntoSavedInput() {
  auto x = torch::rand({3}, torch::requires_grad());
  auto y = torch::pow(x, 2);
  x.detach().add_(1);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'add_' writes through 'detach()' into local 'x', which 'pow' saved for backward; 'detach()' shares the storage and the version counter, so backward throws
  y.sum().backward();
}

void PositiveDataIntoSavedResult() {
  auto x = torch::rand({3}, torch::requires_grad());
  auto y = torch::tanh(x * 3);
  y.data().mul_(0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'mul_' writes through 'data()' into local 'y', which 'tanh' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error
  y.sum().backward();
}

void NegativeAddAndScalarMulSaveNothing(const torch::Tensor &u) {
  auto w = torch::rand({3, 3}, torch::requires_grad());
  auto a = u.matmul(w);
  auto b = u.mm(w);
  auto y = a + b * 2;
  a.mul_(2);
  b.mul_(2);
  y.sum().backward();
}

void NegativeSavedUnderNoGrad() {
  auto x = torch::rand({3}, torch::requires_grad());
  torch::Tensor y;
  {
    torch::NoGradGuard no_grad;
    y = x.exp();
  }
  y.mul_(2);
  (y * x).sum().backward();
}

// The caller differentiates what forward returns (Note [A module's forward
// is differentiated]), so the in-place write into sigmoid's saved output
// makes its backward throw.
struct Mlp : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor x) {
    x = torch::sigmoid(fc->forward(x));
    x.mul_(2);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'mul_' writes in place into {{.*}}'x', which 'sigmoid' saved for backward
    return x;
  }
};

// Negative: forward writes its result before anything saves it.
struct Scaled : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::Tensor forward(torch::Tensor x) {
    auto h = fc->forward(x);
    h.mul_(2);
    return torch::sigmoid(h);
  }
};

void FixmeClampWithScalarBounds(const torch::Tensor &u) {
  auto w = torch::rand({3, 3}, torch::requires_grad());
  auto h = u.matmul(w);
  auto y = h.clamp(0, 1);
  // FIXME: should warn. `clamp` with scalar bounds saves `self`, but the
  // generator could not measure it (both bounds None); the measured
  // `clamp.Tensor` is not the overload called, since the bounds are scalars.
  h.mul_(2);
  y.sum().backward();
}

// A cell whose helper returns views of a sigmoid's result in a struct, and a
// caller that unrolls the cell with std::tie and differentiates its state
// (Note [Saved by a function that returns it], Note [A graph returned to
// the caller]).
struct CellGates {
  torch::Tensor in, forget;
};

static CellGates cellGates(const torch::Tensor &x, const torch::Tensor &w) {
  auto s = torch::sigmoid(x.mm(w));
  return {s.narrow(1, 0, 3), s.narrow(1, 3, 3)};
}

class ForgetCappedCell {
public:
  ForgetCappedCell() : w_(torch::randn({5, 6}).requires_grad_()) {}
  std::tuple<torch::Tensor, torch::Tensor> step(const torch::Tensor &x,
                                                const torch::Tensor &c) {
    CellGates g = cellGates(x, w_);
    g.forget.clamp_max_(0.9);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'clamp_max_' writes in place into tensor 'forget', which 'sigmoid' saved for backward
    auto c2 = g.forget * c + g.in;
    return {torch::tanh(c2), c2};
  }

private:
  torch::Tensor w_;
};

void PositiveCellUnrolledByTheCaller() {
  ForgetCappedCell cell;
  auto h = torch::zeros({2, 3});
  auto c = torch::zeros({2, 3});
  for (int t = 0; t < 3; ++t)
    std::tie(h, c) = cell.step(torch::randn({2, 5}), c);
  h.pow(2).sum().backward();
}

// Negative: the same cell run for evaluation only.
class EvalCappedCell {
public:
  EvalCappedCell() : w_(torch::randn({5, 6}).requires_grad_()) {}
  torch::Tensor step(const torch::Tensor &x) {
    CellGates g = cellGates(x, w_);
    g.forget.clamp_max_(0.9);
    return g.forget * g.in;
  }

private:
  torch::Tensor w_;
};

float NegativeCellNeverDifferentiated() {
  EvalCappedCell cell;
  torch::NoGradGuard no_grad;
  return cell.step(torch::randn({2, 5})).sum().item<float>();
}

// A helper that writes its parameter through data(), called between the
// forward and the backward (Note [Helpers that write through data() or
// detach()]).
void clipRows(torch::Tensor &w) { w.data().clamp_(-1, 1); }

void PositiveClippedByHelperBeforeBackward(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}, torch::requires_grad());
  auto loss = x.matmul(w).sum();
  clipRows(w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'clipRows' writes through 'data()' into local 'w', which 'matmul' may have saved for backward
  loss.backward();
}

void NegativeClippedByHelperAfterStep(const torch::Tensor &x) {
  auto w = torch::randn({4, 4}, torch::requires_grad());
  x.matmul(w).sum().backward();
  clipRows(w);
}

// A projection behind a virtual interface, and one stored in a
// std::function member (Note [Calls that run code chosen at run time]).
struct RealConstraint {
  virtual ~RealConstraint() = default;
  virtual void project(const torch::Tensor &w) const = 0;
};
struct RealNonNegative final : RealConstraint {
  void project(const torch::Tensor &w) const override { w.data().clamp_min_(0); }
};

void PositiveVirtualProjectionBeforeBackward(const torch::Tensor &x,
                                             const RealConstraint &c) {
  auto w = torch::randn({4, 4}, torch::requires_grad());
  auto loss = x.matmul(w).sum();
  c.project(w);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'project' writes through 'data()' into local 'w', which 'matmul' may have saved for backward
  loss.backward();
}

struct RealHooked {
  std::function<void(torch::Tensor &)> renorm_ = [](torch::Tensor &t) {
    t.data().div_(t.data().norm());
  };
};

void PositiveStoredLambdaBeforeBackward(const torch::Tensor &x, RealHooked &h) {
  auto w = torch::randn({4, 4}, torch::requires_grad());
  auto loss = x.matmul(w).sum();
  h.renorm_(w);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'renorm_' writes through 'data()' into local 'w', which 'matmul' may have saved for backward
  loss.backward();
}

void NegativeStoredLambdaAfterBackward(const torch::Tensor &x, RealHooked &h) {
  auto w = torch::randn({4, 4}, torch::requires_grad());
  x.matmul(w).sum().backward();
  h.renorm_(w);
}

// A member list bound to a module's parameters, averaged through data() by
// another object's method between the forward and the backward (Note
// [Lists that hold a module's parameters]).
class RealPeerAverage {
public:
  void average(const std::vector<torch::Tensor> &params) {
    for (size_t i = 0; i < params.size(); ++i)
      params[i].data().mul_(0.5);
  }
};

class RealLocalSgd {
public:
  RealLocalSgd() : model_(4, 2), params_(model_->parameters()) {}
  void step(const torch::Tensor &x) {
    auto loss = model_->forward(x).sum();
    sync_.average(params_);
    // CHECK-MESSAGES: :[[@LINE-10]]:24: warning: 'mul_' writes through 'data()' into the parameters of a 'LinearImpl' between the forward of 'model_' that saved them and the backward that needs them
    loss.backward();
  }

private:
  torch::nn::Linear model_;
  std::vector<torch::Tensor> params_;
  RealPeerAverage sync_;
};

// Note [Element writes through an accessor]: the real TensorAccessor and
// data_ptr<T>().
void pinBoundary(torch::Tensor &u) {
  auto a = u.accessor<float, 1>();
  a[0] = 0.0f;
  a[a.size(0) - 1] = 0.0f;
}

void PositiveAccessorHelperBeforeBackward(torch::nn::Linear net, torch::Tensor x) {
  auto u = net->forward(x).squeeze(1);
  auto loss = u.pow(2).mean();
  pinBoundary(u);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'pinBoundary' writes elements through 'accessor()' into local 'u', which 'pow' saved for backward; an accessor or a data pointer does not bump the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  loss.backward();
}

void PositiveDataPointerBeforeBackward(torch::nn::Linear net, torch::Tensor x) {
  auto u = torch::sigmoid(net->forward(x));
  auto loss = u.sum();
  u.data_ptr<float>()[0] = 1.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'operator=' writes elements through 'data_ptr()' into local 'u', which 'sigmoid' saved for backward; an accessor or a data pointer does not bump the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  loss.backward();
}

void NegativeAccessorAfterBackward(torch::nn::Linear net, torch::Tensor x) {
  auto u = net->forward(x).squeeze(1);
  auto loss = u.pow(2).mean();
  loss.backward();
  pinBoundary(u);
}

// Note [Saved by a function of its arguments] and Note [Outputs of library
// modules], on the real Sequential.
torch::Tensor burgersFlux(const torch::Tensor &u) { return 0.5 * u.pow(2); }

void PositiveSequentialOutputSavedByAHelper(torch::nn::Sequential net, torch::Tensor x) {
  auto u = net->forward(x).squeeze(1);
  auto loss = burgersFlux(u).mean();
  u.data().clamp_(-1, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'clamp_' writes through 'data()' into local 'u', which 'pow' saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  loss.backward();
}

// Note [Views outside the graph]: variable_data() is data() under another
// name, on a buffer that a NoisyNet layer's forward saved.
struct NoisyHeadImpl : torch::nn::Module {
  NoisyHeadImpl() {
    mu = register_parameter("mu", torch::zeros({3, 4}));
    sigma = register_parameter("sigma", torch::ones({3, 4}));
    eps = register_buffer("eps", torch::zeros({3, 4}));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return torch::nn::functional::linear(x, mu + sigma * eps);
  }
  void resample() { eps.variable_data().copy_(torch::randn({3, 4})); }
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'copy_' writes through 'variable_data()' into member 'eps' of 'head' between the forward of 'head' that saved it and the backward that needs it; 'variable_data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  torch::Tensor mu, sigma, eps;
};
TORCH_MODULE(NoisyHead);

void PositiveNoiseResampledBeforeBackward(NoisyHead head, torch::Tensor x) {
  auto loss = head->forward(x).sum();
  head->resample();
  loss.backward();
}

void NegativeNoiseResampledAfterBackward(NoisyHead head, torch::Tensor x) {
  auto loss = head->forward(x).sum();
  loss.backward();
  head->resample();
}
