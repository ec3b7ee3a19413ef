// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch
// A call through a virtual method, or of a std::function, runs code the call
// does not name: an override of the file, or a callable stored into the
// function object (Note [Calls that run code chosen at run time]). What one
// of them may write, the call may write.

#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct Constraint {
  virtual ~Constraint() = default;
  virtual void project(const torch::Tensor &w) const = 0;
};

struct NonNegative final : Constraint {
  void project(const torch::Tensor &w) const override { w.data().clamp_(0, 1); }
};

struct Identity : Constraint {
  void project(const torch::Tensor &) const override {}
};

// Through a reference to the base: NonNegative's override may run.
void PositiveVirtualThroughReference(const torch::Tensor &x, const Constraint &c) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  c.project(w);
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'project' writes through 'data()' into local 'w', which 'matmul' may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-13]]:59: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-14]]:66: note: 'project' writes its parameter 'w' in place here
  // CHECK-NOTES: :[[@LINE-5]]:17: note: 'matmul' may save 'w' for backward here
  loss.backward();
}

// Through a smart pointer, from a container of (tensor, constraint) pairs
// built elsewhere.
void PositiveVirtualThroughPointer(const torch::Tensor &x,
                                   const std::shared_ptr<Constraint> &c) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = torch::relu(x.matmul(w)).sum();
  c->project(w);
  // CHECK-NOTES: :[[@LINE-1]]:6: warning: 'project' writes through 'data()' into local 'w', which 'matmul' may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-27]]:59: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-28]]:66: note: 'project' writes its parameter 'w' in place here
  // CHECK-NOTES: :[[@LINE-5]]:29: note: 'matmul' may save 'w' for backward here
  loss.backward();
}

// The projection runs after backward: nothing saved is needed any more.
void NegativeVirtualAfterBackward(const torch::Tensor &x, const Constraint &c) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  loss.backward();
  c.project(w);
}

// The object's type is known, so only Identity's override runs.
void NegativeKnownDynamicType(const torch::Tensor &x) {
  Identity keep;
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  keep.project(w);
  loss.backward();
}

// A std::function member set by the constructor.
struct Clipper {
  std::function<void(torch::Tensor &)> clip_;
  std::function<void(const torch::Tensor &)> log_;
  Clipper()
      : clip_([](torch::Tensor &t) { t.data().clamp_(-1, 1); }),
        log_([](const torch::Tensor &t) { (void)t.sum(); }) {}
};

void PositiveFunctionMember(const torch::Tensor &x, Clipper &c) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  c.clip_(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_' writes through 'data()' into local 'w', which 'matmul' may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-9]]:40: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-10]]:47: note: 'clip_' writes its parameter 't' in place here
  // CHECK-NOTES: :[[@LINE-5]]:17: note: 'matmul' may save 'w' for backward here
  loss.backward();
}

// The other member holds a lambda that only reads.
void NegativeFunctionMemberThatReads(const torch::Tensor &x, Clipper &c) {
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  c.log_(w);
  loss.backward();
}

// Callbacks registered through a parameter, fired by a method that calls
// each element of the container.
struct Callbacks {
  std::vector<std::function<void(const torch::Tensor &)>> after_forward_;
  void on(std::function<void(const torch::Tensor &)> f) {
    after_forward_.push_back(std::move(f));
  }
  void fire(const torch::Tensor &t) {
    for (auto &f : after_forward_)
      f(t);
  }
};

void PositiveRegisteredCallback(const torch::Tensor &x, Callbacks &callbacks) {
  callbacks.on([](const torch::Tensor &t) { t.data().mul_(0.9); });
  auto w = torch::randn({4, 4}).requires_grad_();
  auto loss = x.matmul(w).sum();
  callbacks.fire(w);
  // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'fire' writes through 'data()' into local 'w', which 'matmul' may have saved for backward; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-5]]:47: note: detached view of local 'w' created here by 'data'
  // CHECK-NOTES: :[[@LINE-11]]:7: note: 'fire' writes its parameter 't' in place here
  // CHECK-NOTES: :[[@LINE-5]]:17: note: 'matmul' may save 'w' for backward here
  loss.backward();
}

// Post-ops in a global registry, keyed by name, that write a sigmoid output
// in place: backward needs the output. (Through a view of it, the same write
// is libtorch-inplace-on-view's: its saved-tensors.cpp.)
std::map<std::string, std::function<void(torch::Tensor &)>> PostOps;
void registerPostOps() {
  PostOps["cap"] = [](torch::Tensor &t) { t.clamp_(0, 6); };
  // CHECK-NOTES: :[[@LINE-1]]:45: warning: 'clamp_' writes in place into local 'y', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE+10]]:5: note: 'PostOps' is called here
  // CHECK-NOTES: :[[@LINE-3]]:45: note: 'PostOps' writes its parameter 't' in place here
  // CHECK-NOTES: :[[@LINE+9]]:3: note: the backward that needs it runs here
  // CHECK-NOTES: :[[@LINE+5]]:12: note: 'sigmoid' saves its result for backward here
}

void PositiveRegistryOnSavedOutput(const torch::Tensor &x) {
  auto w = torch::randn({4}, torch::requires_grad());
  auto y = torch::sigmoid(x * w);
  for (auto &op : PostOps)
    op.second(y);
  y.sum().backward();
}

// A registry of callables that read only.
std::map<std::string, std::function<double(const torch::Tensor &)>> Metrics;
void registerMetrics() {
  Metrics["mean"] = [](const torch::Tensor &t) { return t.mean().item<double>(); };
}

void NegativeRegistryThatReads(const torch::Tensor &x) {
  auto w = torch::randn({4}, torch::requires_grad());
  auto y = torch::sigmoid(x * w);
  for (auto &metric : Metrics)
    (void)metric.second(y);
  y.sum().backward();
}
