// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

#include <torch/torch.h>

void PositiveLibraryMember(torch::nn::Linear &lin, torch::nn::Embedding &emb) {
  lin->weight = emb->weight;
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: assigning 'weight' does not re-register it: 'LinearImpl' computes with the new tensor, but parameters(), to() and serialization still see the one registered as 'weight' [libtorch-shared-parameter-update]
}

struct ScaleImpl : torch::nn::Module {
  ScaleImpl() { scale = register_parameter("scale", torch::ones({1})); }
  torch::Tensor scale;
  torch::Tensor cache;
};

void PositiveUserMember(ScaleImpl &m, const torch::Tensor &s) {
  m.scale = s;
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: assigning 'scale' does not re-register it: 'ScaleImpl' computes with the new tensor, but parameters(), to() and serialization still see the one registered as 'scale'
}

// Members that are not registered parameters, and the constructor binding
// the member it registers.
void NegativeUnregistered(ScaleImpl &m, const torch::Tensor &c) { m.cache = c; }

// Copying values keeps the registered tensor.
void NegativeValueCopy(torch::nn::Linear &lin, torch::nn::Embedding &emb) {
  torch::NoGradGuard no_grad;
  lin->weight.copy_(emb->weight);
}
