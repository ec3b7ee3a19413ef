// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

#include <torch/torch.h>

#include <set>
#include <string>
#include <unordered_set>

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
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'sub_' updates parameter 'emb.weight' in place twice per pass over the list (also as 'out_weight'); the list holds it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
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

// Per-module loops: modules() yields every module once per registration
// path, so the parameters of each, non-recursively, add up to parameters().
void PositivePerModuleLoop(TiedImpl &net) {
  for (auto &m : net.modules())
    for (auto &p : m->parameters(/*recurse=*/false))
      p.sub_(p.grad());
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'sub_' updates parameter 'emb.weight' in place twice per pass over modules() (also as 'out_weight'); the modules it visits hold it twice; loop over a de-duplicated parameter list or register the tensor once
  // CHECK-NOTES: :[[@LINE-69]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-69]]:5: note: and here
}

struct SharedSubImpl : torch::nn::Module {
  SharedSubImpl() {
    a = register_module("a", torch::nn::Linear(4, 4));
    register_module("b", a);
  }
  torch::nn::Linear a{nullptr};
};

void PositivePerModuleSharedSubmodule(std::shared_ptr<SharedSubImpl> net) {
  for (const auto &m : net->modules())
    for (auto &item : m->named_parameters(false))
      item.value().data().mul_(0.5);
  // CHECK-NOTES: :[[@LINE-1]]:27: warning: 'mul_' updates parameter 'a.weight' in place twice per pass over modules() (also as 'b.weight'); the modules it visits hold it twice; loop over a de-duplicated parameter list or register the module once
  // CHECK-NOTES: :[[@LINE-11]]:9: note: 'a' and 'b' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-11]]:5: note: and here
}

// The same loop over a model without sharing.
struct EncoderDecoderImpl : torch::nn::Module {
  EncoderDecoderImpl() {
    enc = register_module("enc", torch::nn::Linear(4, 4));
    dec = register_module("dec", torch::nn::Linear(4, 4));
  }
  torch::nn::Linear enc{nullptr}, dec{nullptr};
};

void NegativePerModuleNoSharing(EncoderDecoderImpl &net) {
  for (auto &m : net.modules())
    for (auto &p : m->parameters(false))
      p.sub_(p.grad());
}

// modules(false) skips the root, so its own 'out_weight' is not visited.
void NegativePerModuleWithoutSelf(TiedImpl &net) {
  for (auto &m : net.modules(/*include_self=*/false))
    for (auto &p : m->parameters(false))
      p.sub_(p.grad());
}

// Re-initialising a shared module twice is harmless.
void NegativePerModuleInit(TiedImpl &net) {
  for (auto &m : net.modules())
    for (auto &p : m->parameters(false))
      p.zero_();
}

// Note [Loops that skip what they have seen]: the loop de-duplicates as it
// goes, so each tensor is updated once.
void NegativeLoopSkipsSeenTensors(TiedImpl &net) {
  torch::NoGradGuard no_grad;
  std::unordered_set<const void *> seen;
  for (auto &p : net.parameters()) {
    if (!seen.insert(p.data_ptr()).second)
      continue;
    p.sub_(p.grad().mul(0.1));
  }
  std::set<const void *> visited;
  for (auto &item : net.named_parameters()) {
    if (visited.count(item.value().data_ptr()) || !item.value().grad().defined())
      continue;
    visited.insert(item.value().data_ptr());
    item.value().mul_(0.99);
  }
}

// A `continue` on another condition does not de-duplicate.
void PositiveSkipOnAnotherCondition(TiedImpl &net, const std::set<std::string> &frozen) {
  torch::NoGradGuard no_grad;
  for (auto &item : net.named_parameters()) {
    if (frozen.count(item.key()) || !item.value().grad().defined())
      continue;
    item.value().sub_(item.value().grad());
    // CHECK-NOTES: :[[@LINE-1]]:18: warning: 'sub_' updates parameter 'emb.weight' in place twice per pass over the list (also as 'out_weight'); the list holds it twice
    // CHECK-NOTES: :[[@LINE-146]]:34: note: 'emb.weight' and 'out_weight' are the same tensor, registered here
    // CHECK-NOTES: :[[@LINE-146]]:5: note: and here
  }
}
