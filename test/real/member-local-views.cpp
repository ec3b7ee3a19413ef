// Ground truth for Note [Members saved through a local view] on the real
// Tensor::operator[] and detach().
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %real_torch

#include <torch/torch.h>

class PrototypesImpl : public torch::nn::Module {
public:
  PrototypesImpl(int64_t classes, int64_t dim) {
    protos = register_parameter("protos", torch::randn({classes, dim}));
  }
  torch::Tensor score(const torch::Tensor &x, int64_t k) {
    auto proto = protos[k];
    return x.mul(proto).sum();
  }
  void renormalise_() {
    torch::Tensor norms = protos.detach().norm(2, {1}, /*keepdim=*/true);
    protos.detach().div_(norms);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'div_' writes through 'detach()' into member 'protos' of 'model' between the call 'model.score()' that saved it and the backward that needs it; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  }
  torch::Tensor protos;
};
TORCH_MODULE(Prototypes);

void RenormaliseBeforeBackward(Prototypes &model, const torch::Tensor &x) {
  auto loss = model->score(x, 2);
  model->renormalise_();
  loss.backward();
}

void RenormaliseAfterBackward(Prototypes &model, const torch::Tensor &x) {
  auto loss = model->score(x, 2);
  loss.backward();
  model->renormalise_();
}
