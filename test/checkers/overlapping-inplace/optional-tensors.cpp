// RUN: %check_clang_tidy %s libtorch-overlapping-inplace %t -- -- %mock_torch
// `*opt`, `opt.value()` and `opt->` of an optional tensor are the tensor it
// holds (Note [Optional tensors]).

#include <torch/torch.h>

#include <optional>

struct PowerIteration {
  std::optional<torch::Tensor> state_;
  torch::Tensor m_;

  void PositiveMemberOptionalBothSides() {
    at::mm_out(*state_, m_, *state_);
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: input '*state_' of 'mm_out' is the same tensor as its out= argument '*state_'; aten::mm does not reject this and computes a wrong result: it reads elements it has already written [libtorch-overlapping-inplace]
    // CHECK-FIXES: at::mm_out(*state_, m_, (*state_).clone());
  }

  void NegativeSeparateBuffers(std::optional<torch::Tensor> &next) {
    at::mm_out(*next, m_, *state_);
  }
};

void PositiveLocalOptionalValue(const torch::Tensor &w) {
  std::optional<torch::Tensor> h = torch::zeros({4, 4});
  at::mm_out(h.value(), h.value(), w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: input 'h.value()' of 'mm_out' is the same tensor as its out= argument 'h.value()'; aten::mm does not reject this and computes a wrong result: it reads elements it has already written [libtorch-overlapping-inplace]
  // CHECK-FIXES: at::mm_out(h.value(), h.value().clone(), w);
}

void NegativeTwoOptionals(const torch::Tensor &w) {
  std::optional<torch::Tensor> a = torch::zeros({4, 4});
  std::optional<torch::Tensor> b = torch::zeros({4, 4});
  at::mm_out(*a, *b, w);
}
