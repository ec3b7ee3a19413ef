// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

#include <torch/torch.h>

struct TiedImpl : torch::nn::Module {
  TiedImpl() {
    emb = register_module("emb", torch::nn::Embedding(10, 4));
    register_parameter("out_weight", emb->weight);
  }
  torch::nn::Embedding emb{nullptr};
};

void PositiveManualStep(TiedImpl &net, double lr) {
  torch::NoGradGuard no_grad;
  for (auto &p : net.parameters())
    p.sub_(p.grad().mul(lr));
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'sub_' updates parameter 'emb.weight' in place twice per pass over the list (also as 'out_weight'); the list holds it twice
  // CHECK-NOTES: :[[@LINE-11]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-11]]:5: note: and here
}

void PositiveThroughData(TiedImpl &net) {
  for (auto &p : net.parameters())
    p.data().add_(p.grad(), -0.1);
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'add_' updates parameter 'emb.weight' in place twice per pass over the list (also as 'out_weight'); the list holds it twice
  // CHECK-NOTES: :[[@LINE-19]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-19]]:5: note: and here
}

void PositiveNamedParameters(TiedImpl &net) {
  for (auto &item : net.named_parameters())
    item.value().mul_(0.99);
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: 'mul_' updates parameter 'emb.weight' in place twice per pass over the list (also as 'out_weight'); the list holds it twice
  // CHECK-NOTES: :[[@LINE-27]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-27]]:5: note: and here
}

void PositiveIndexLoop(TiedImpl &net) {
  auto params = net.parameters();
  for (size_t i = 0; i < params.size(); ++i)
    params[i].copy_(params[i].sub(params[i].grad()));
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'copy_' updates parameter 'emb.weight' in place twice per pass over the list (also as 'out_weight'); the list holds it twice
  // CHECK-NOTES: :[[@LINE-36]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-36]]:5: note: and here
}

// Re-initialisation writes the same value once or twice.
void NegativeInit(TiedImpl &net, const torch::Tensor &pretrained) {
  for (auto &p : net.parameters())
    p.uniform_(-0.1, 0.1);
  for (auto &p : net.parameters())
    p.zero_();
  for (auto &p : net.parameters())
    p.copy_(pretrained);
}

// Writes to the gradient, not the parameter.
void NegativeZeroGrad(TiedImpl &net) {
  for (auto &p : net.parameters())
    p.grad().zero_();
}

// The same loops over a model without duplicates.
void NegativeNoDuplicates(torch::nn::Linear &lin) {
  for (auto &p : lin->parameters())
    p.sub_(p.grad());
}

// FIXME: should warn: a per-module loop visits the shared module twice.
void PerModuleLoop(TiedImpl &net) {
  for (auto &m : net.modules())
    for (auto &p : m->parameters(false))
      p.sub_(p.grad());
}
