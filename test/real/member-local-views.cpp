// Ground truth for Note [Members saved through a local view] on the real
// Tensor::operator[] and detach().
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %real_torch

#include <torch/torch.h>

class PoincareImpl : public torch::nn::Module {
public:
  PoincareImpl(int64_t n, int64_t dim) {
    weight = register_parameter("weight", torch::rand({n, dim}).sub_(0.5).mul_(0.2));
  }
  torch::Tensor dist(int64_t u, int64_t v) {
    auto a = weight[u], b = weight[v];
    auto alpha = 1 - a.pow(2).sum(), beta = 1 - b.pow(2).sum();
    return torch::acosh(1 + 2 * (a - b).pow(2).sum() / (alpha * beta));
  }
  void project_(double eps = 1e-5) {
    auto w = weight.detach();
    auto n = w.norm(2, {1}, /*keepdim=*/true);
    w.mul_(torch::where(n >= 1 - eps, (1 - eps) / n, torch::ones_like(n)));
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'mul_' writes through 'detach()' into member 'weight' of 'model' between the call 'model.dist()' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  }
  torch::Tensor weight;
};
TORCH_MODULE(Poincare);

void ProjectBeforeBackward(Poincare &model) {
  auto loss = model->dist(0, 1);
  model->project_();
  loss.backward();
}

void ProjectAfterBackward(Poincare &model) {
  auto loss = model->dist(0, 1);
  loss.backward();
  model->project_();
}
