// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Note [References to tensors]: a vector of std::reference_wrapper<Tensor>
// is a list of the tensors it refers to.

#include <torch/torch.h>

#include <functional>
#include <vector>

struct StreamImpl : torch::nn::Module {
  StreamImpl(torch::nn::Linear shared_trunk, int64_t out) {
    trunk = register_module("trunk", shared_trunk);
    head = register_module("head", torch::nn::Linear(24, out));
  }
  torch::nn::Linear trunk{nullptr}, head{nullptr};
};
TORCH_MODULE(Stream);

struct DuelingImpl : torch::nn::Module {
  DuelingImpl(int64_t obs, int64_t actions) {
    torch::nn::Linear features(obs, 24);
    value = register_module("value", Stream(features, 1));
    advantage = register_module("advantage", Stream(features, actions));
  }
  Stream value{nullptr}, advantage{nullptr};
};
TORCH_MODULE(Dueling);

// The shared trunk is named through both streams.
void PositiveTrunkTwice(Dueling net, double lr) {
  const std::vector<std::reference_wrapper<torch::Tensor>> trainable{
      net->value->trunk->weight, net->value->head->weight,
      net->advantage->trunk->weight, net->advantage->head->weight};
  for (torch::Tensor &p : trainable)
    p.sub_(lr * p.grad());
    // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'sub_' updates parameter 'net->value->trunk->weight' in place twice per pass over the list (also as 'net->advantage->trunk->weight'); the list holds it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
    // CHECK-NOTES: :[[@LINE-5]]:7: note: 'net->value->trunk->weight' and 'net->advantage->trunk->weight' are the same tensor, registered here
    // CHECK-NOTES: :[[@LINE-5]]:7: note: and here
}

// Each tensor once.
void NegativeEachOnce(Dueling net, double lr) {
  const std::vector<std::reference_wrapper<torch::Tensor>> trainable{
      net->value->trunk->weight, net->value->head->weight,
      net->advantage->head->weight};
  for (torch::Tensor &p : trainable)
    p.sub_(lr * p.grad());
}
