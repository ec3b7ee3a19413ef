// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch
// Note [Members saved through a local view]: a method that saves a view of a
// member it keeps in a local saves the member.

#include <torch/torch.h>

// Poincaré embeddings: rows taken into locals, projected back into the ball
// through detach() by another method.
class PoincareImpl : public torch::nn::Module {
public:
  PoincareImpl(int64_t n, int64_t dim) {
    weight = register_parameter("weight", torch::rand({n, dim}));
  }
  torch::Tensor dist(int64_t u, int64_t v) {
    auto a = weight[u], b = weight[v];
    auto alpha = a.pow(2).sum(), beta = b.pow(2).sum();
    return (a - b).pow(2).sum() / (alpha * beta);
  }
  torch::Tensor norms() {
    auto rows = weight.narrow(0, 0, 2);
    auto first = rows.select(0, 0);
    return first.pow(2).sum();
  }
  torch::Tensor cloned(int64_t u) {
    auto a = weight[u].clone();
    return a.pow(2).sum();
  }
  torch::Tensor rebound(int64_t u, const torch::Tensor &other) {
    auto a = weight[u];
    a = other;
    return a.pow(2).sum();
  }
  void project_() {
    auto w = weight.detach();
    w.mul_(0.5);
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'mul_' writes through 'detach()' into member 'weight' of 'model' between the call 'model.dist()' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
    // CHECK-NOTES: :[[@LINE+10]]:10: note: 'project_' is called here, between the forward and the backward
    // CHECK-NOTES: :[[@LINE+8]]:22: note: the call 'model.dist()' saves it for backward here
    // CHECK-NOTES: :[[@LINE+9]]:3: note: the backward that needs it runs here
  }
  torch::Tensor weight;
};
TORCH_MODULE(Poincare);

void PositiveProjectBeforeBackward(Poincare &model) {
  auto loss = model->dist(0, 1);
  model->project_();
  loss.backward();
}

void PositiveThroughTwoLocals(Poincare &model) {
  auto loss = model->norms();
  model->weight.data().clamp_(-1, 1);
  // CHECK-NOTES: :[[@LINE-1]]:24: warning: 'clamp_' writes through 'data()' into member 'weight' of 'model' between the call 'model.norms()' that saved it and the backward that needs it; 'data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-3]]:22: note: the call 'model.norms()' saves it for backward here
  // CHECK-NOTES: :[[@LINE+1]]:3: note: the backward that needs it runs here
  loss.backward();
}

// The saved local is a clone.
void NegativeClonedRow(Poincare &model) {
  auto loss = model->cloned(0);
  model->project_();
  loss.backward();
}

// The local is given another tensor before it is saved.
void NegativeReboundLocal(Poincare &model, const torch::Tensor &other) {
  auto loss = model->rebound(0, other);
  model->project_();
  loss.backward();
}

// Projected after the backward.
void NegativeProjectAfterBackward(Poincare &model) {
  auto loss = model->dist(0, 1);
  loss.backward();
  model->project_();
}
