// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// The nn::init functions and `inplace` activations write their tensor in
// place (checks/data/libtorch-api-effects.json), like any in-place method.

void PositiveInitIntoViewOfArgument(torch::Tensor w) {
  auto head = w.narrow(0, 0, 2);
  torch::nn::init::xavier_uniform_(head);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'xavier_uniform_' writes in place to 'head', a view of parameter 'w'; the caller's tensor changes too [libtorch-inplace-on-view]
  // CHECK-FIXES: auto head = w.narrow(0, 0, 2).clone();
}

void PositiveInplaceDropoutOnViewOfArgument(torch::Tensor batch) {
  auto first = batch.select(0, 0);
  F::dropout(first, F::DropoutFuncOptions().p(0.2).inplace(true));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'dropout' writes in place to 'first', a view of parameter 'batch'
  // CHECK-FIXES: auto first = batch.select(0, 0).clone();
}

// The result of an inplace activation is its input: writing it writes the
// view too.
void PositiveWriteThroughInplaceResult(torch::Tensor x) {
  auto row = x.select(0, 1);
  auto y = F::relu(row, F::ReLUFuncOptions().inplace(true));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'relu' writes in place to 'row', a view of parameter 'x'
  // CHECK-FIXES: auto row = x.select(0, 1).clone();
}

void NegativeInitOfFreshTensor() {
  auto w = torch::empty({3, 4});
  torch::nn::init::normal_(w.narrow(0, 0, 2));
  torch::nn::init::constant_(w, 0.5);
}

void NegativeOutOfPlaceActivation(torch::Tensor x) {
  auto row = x.select(0, 1);
  auto y = F::relu(row);
  auto z = F::dropout(row, F::DropoutFuncOptions().inplace(false));
}
