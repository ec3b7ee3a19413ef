// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// What libtorch's C++ API writes and saves is measured (checks/data/
// libtorch-api-effects.json): an `inplace` activation writes its input, and
// embedding with max_norm renormalises rows of its weight under its own
// NoGradGuard, which autograd allows even on a parameter.

// Positive: an in-place ReLU on the output sigmoid saved.

void PositiveInplaceReluOnSavedOutput() {
  auto w = torch::rand({3}, torch::requires_grad());
  auto s = torch::sigmoid(w * 2);
  auto y = F::relu(s, F::ReLUFuncOptions().inplace(true));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'relu' writes in place into local 's', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-detached-write]
  y.sum().backward();
}

// Positive: the options' constructor sets inplace too (ReLUOptions(bool)).

void PositiveInplaceByConstructor() {
  auto w = torch::rand({3}, torch::requires_grad());
  auto s = torch::sigmoid(w * 2);
  auto y = F::relu(s, F::ReLUFuncOptions(true));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'relu' writes in place into local 's', which 'sigmoid' saved for backward
  y.sum().backward();
}

// Positive: a tied output projection saved the weight that the max-norm
// lookup then renormalises.

void PositiveMaxNormAfterTiedProjection(const torch::Tensor &ids) {
  // The hidden state is part of the graph, so matmul saves the weight.
  auto h = torch::rand({2, 5}, torch::requires_grad());
  auto weight = torch::randn({5, 3}, torch::requires_grad());
  auto logits = torch::matmul(h, weight);
  auto e = F::embedding(ids, weight, F::EmbeddingFuncOptions().max_norm(1.0));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'embedding' writes in place into local 'weight', which 'matmul' saved for backward
  (logits.sum() + e.sum()).backward();
}

// Negative: without max_norm, embedding writes nothing.

void NegativeNoMaxNorm(const torch::Tensor &ids) {
  // The hidden state is part of the graph, so matmul saves the weight.
  auto h = torch::rand({2, 5}, torch::requires_grad());
  auto weight = torch::randn({5, 3}, torch::requires_grad());
  auto logits = torch::matmul(h, weight);
  auto e = F::embedding(ids, weight, F::EmbeddingFuncOptions());
  (logits.sum() + e.sum()).backward();
}

// Negative: max_norm explicitly unset.

void NegativeMaxNormUnset(const torch::Tensor &ids) {
  // The hidden state is part of the graph, so matmul saves the weight.
  auto h = torch::rand({2, 5}, torch::requires_grad());
  auto weight = torch::randn({5, 3}, torch::requires_grad());
  auto logits = torch::matmul(h, weight);
  auto e = F::embedding(ids, weight,
                        F::EmbeddingFuncOptions().max_norm(c10::nullopt));
  (logits.sum() + e.sum()).backward();
}

// Negative: an in-place ReLU without inplace is out of place.

void NegativeNotInplace() {
  auto w = torch::rand({3}, torch::requires_grad());
  auto s = torch::sigmoid(w * 2);
  auto y = F::relu(s, F::ReLUFuncOptions().inplace(false));
  y.sum().backward();
}

// Negative: an in-place ReLU on a fresh sum, which add does not save.

void NegativeInplaceOnUnsavedResult() {
  auto w = torch::rand({3}, torch::requires_grad());
  auto s = w + 1;
  auto y = F::relu(s, F::ReLUFuncOptions().inplace(true));
  y.sum().backward();
}

// A module's forward builds the graph its caller differentiates (Note [A
// module's forward is differentiated]): the backward is not in forward.

struct TwoTowerImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &users, const torch::Tensor &items) {
    auto u = F::embedding(users, user_table);
    auto scores = torch::mm(u, item_table.t());
    auto p = F::embedding(items, item_table,
                          F::EmbeddingFuncOptions().max_norm(1.0));
    // CHECK-MESSAGES: :[[@LINE-2]]:14: warning: 'embedding' writes in place into member 'item_table', which 'mm' saved for backward
    return scores.sum() - (u * p).sum();
  }
  torch::Tensor user_table, item_table;
};

// Negative: the same lookup in a function that is not a module's forward
// and calls no backward.

torch::Tensor NegativeScoresOutsideForward(const torch::Tensor &u,
                                           const torch::Tensor &items,
                                           torch::Tensor table) {
  auto scores = torch::mm(u, table.t());
  auto p = F::embedding(items, table, F::EmbeddingFuncOptions().max_norm(1.0));
  return scores.sum() - p.sum();
}

// Negative: forward saves after the renormalisation.

struct RenormFirstImpl : torch::nn::Module {
  torch::Tensor forward(const torch::Tensor &users, const torch::Tensor &items) {
    auto u = F::embedding(users, user_table);
    auto p = F::embedding(items, item_table,
                          F::EmbeddingFuncOptions().max_norm(1.0));
    auto scores = torch::mm(u, item_table.t());
    return scores.sum() - (u * p).sum();
  }
  torch::Tensor user_table, item_table;
};
