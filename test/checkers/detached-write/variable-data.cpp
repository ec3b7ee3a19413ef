// RUN: %check_clang_tidy %s libtorch-detached-write %t -- -- %mock_torch
// Note [Views outside the graph]: `variable_data()` is `data()` under
// another name. A write through it shares the storage and not the version
// counter, so backward uses the new values of a tensor an operation saved,
// without an error.

#include <torch/torch.h>

// A local that sigmoid saved, clamped through variable_data().
void PositiveLocal(torch::nn::Linear net, torch::Tensor x) {
  auto p = torch::sigmoid(net->forward(x));
  auto loss = p.sum();
  p.variable_data().clamp_(0.01, 0.99);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'clamp_' writes through 'variable_data()' into local 'p', which 'sigmoid' saved for backward; 'variable_data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE-2]]:5: note: detached view of local 'p' created here by 'variable_data'
  // CHECK-NOTES: :[[@LINE-5]]:12: note: 'sigmoid' saves its result for backward here
  loss.backward();
}

// A noise buffer resampled by a method between the loss and its backward.
struct NoisyLinearImpl : torch::nn::Module {
  NoisyLinearImpl() {
    mu = register_parameter("mu", torch::zeros({3, 4}));
    sigma = register_parameter("sigma", torch::ones({3, 4}));
    eps = register_buffer("eps", torch::zeros({3, 4}));
  }
  torch::Tensor forward(const torch::Tensor &x) {
    return torch::matmul(x, (mu + sigma * eps).t());
  }
  void resample() { eps.variable_data().copy_(torch::randn({3, 4})); }
  // CHECK-NOTES: :[[@LINE-1]]:41: warning: 'copy_' writes through 'variable_data()' into member 'eps' of 'layer' between the forward of 'layer' that saved it and the backward that needs it; 'variable_data()' does not share the version counter, so backward computes wrong gradients without an error [libtorch-detached-write]
  // CHECK-NOTES: :[[@LINE+9]]:10: note: 'resample' is called here, between the forward and the backward
  // CHECK-NOTES: :[[@LINE+7]]:22: note: the forward of 'layer' saves it for backward here
  // CHECK-NOTES: :[[@LINE+8]]:3: note: the backward that needs it runs here
  torch::Tensor mu, sigma, eps;
};
TORCH_MODULE(NoisyLinear);

void PositiveMethod(NoisyLinear layer, torch::Tensor x) {
  auto loss = layer->forward(x).sum();
  layer->resample();
  loss.backward();
}

// The same resample after the backward.
void NegativeAfterBackward(NoisyLinear layer, torch::Tensor x) {
  auto loss = layer->forward(x).sum();
  loss.backward();
  layer->resample();
}

// add saves neither operand.
void NegativeUnsaved(torch::Tensor w, torch::Tensor x) {
  auto y = x + w;
  auto loss = y.sum();
  w.variable_data().zero_();
  loss.backward();
}

// A tensor made by the function, written before anything reads it.
void NegativeBeforeUse(torch::nn::Linear net, torch::Tensor x) {
  auto h = net->forward(x);
  h.variable_data().clamp_(-1.0, 1.0);
  auto loss = h.pow(2).sum();
  loss.backward();
}
