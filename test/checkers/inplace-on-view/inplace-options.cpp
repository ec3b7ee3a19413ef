// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// Note [In-place options on a tensor someone still reads]: a module or
// functional built with `inplace(true)` overwrites the tensor it is given.

// Positive: a residual block's in-place ReLU on its input, which the skip
// connection still holds.

struct ResidualImpl : torch::nn::Module {
  ResidualImpl() : fc(8, 8) {
    act = register_module("act", torch::nn::ReLU(torch::nn::ReLUOptions().inplace(true)));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto skip = x;
    auto h = fc(act(x));
    // CHECK-NOTES: :[[@LINE-1]]:17: warning: 'act' is built to write its input in place, and its input is parameter 'x'; 'skip', which holds the same tensor, is read afterwards and sees the write [libtorch-inplace-on-view]
    // CHECK-NOTES: :[[@LINE-6]]:34: note: 'act' is built here
    return h + skip;
  }
  torch::nn::Linear fc;
  torch::nn::ReLU act{nullptr};
};

// Positive: an in-place dropout on the batch a caller passes, which the
// caller then uses as its target.

struct DenoiserImpl : torch::nn::Module {
  DenoiserImpl() : noise(torch::nn::DropoutOptions(0.2).inplace(true)), fc(8, 8) {}
  torch::Tensor forward(const torch::Tensor &batch) {
    return fc(noise(batch));
    // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'noise' is built to write its input in place, and its input is parameter 'batch'; the caller's tensor changes too
    // CHECK-NOTES: :[[@LINE-4]]:20: note: 'noise' is built here
  }
  torch::nn::Dropout noise;
  torch::nn::Linear fc;
};

// Positive: the functional form.

torch::Tensor PositiveFunctional(const torch::Tensor &logits) {
  return F::relu(logits, F::ReLUFuncOptions().inplace(true));
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'relu' is built to write its input in place, and its input is parameter 'logits'; the caller's tensor changes too
}

// Negative: an in-place activation on a layer's fresh output.

struct MlpImpl : torch::nn::Module {
  MlpImpl() : fc1(8, 8), fc2(8, 8), act(torch::nn::ReLUOptions().inplace(true)) {}
  torch::Tensor forward(const torch::Tensor &x) { return fc2(act(fc1(x))); }
  torch::nn::Linear fc1, fc2;
  torch::nn::ReLU act;
};

// Negative: not in place.

struct PlainResidualImpl : torch::nn::Module {
  PlainResidualImpl() : fc(8, 8) {}
  torch::Tensor forward(torch::Tensor x) {
    auto skip = x;
    return fc(act(x)) + skip;
  }
  torch::nn::Linear fc;
  torch::nn::ReLU act;
};

// Negative: an output parameter written on purpose.

void NegativeOutputParameter(torch::Tensor &out) {
  F::relu(out, F::ReLUFuncOptions().inplace(true));
}
