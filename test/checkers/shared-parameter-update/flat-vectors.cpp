// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// vector_to_parameters sets each tensor of a list from its own slice of a
// flat vector (Note [Parameters set from a flat vector]), also in a helper
// given the list (Note [Sinks in helper functions]).

#include <torch/torch.h>

#include <vector>

struct PolicyImpl : torch::nn::Module {
  PolicyImpl() {
    features = register_module("features", torch::nn::Linear(4, 32));
    head = register_module("head", torch::nn::Sequential(features, torch::nn::Linear(32, 2)));
  }
  torch::nn::Linear features{nullptr};
  torch::nn::Sequential head{nullptr};
};
TORCH_MODULE(Policy);

struct TwoLayersImpl : torch::nn::Module {
  TwoLayersImpl() {
    a = register_module("a", torch::nn::Linear(4, 4));
    b = register_module("b", torch::nn::Linear(4, 4));
  }
  torch::nn::Linear a{nullptr}, b{nullptr};
};
TORCH_MODULE(TwoLayers);

// A flat step over a list that holds the shared layer twice.
void PositiveFlatStep(const torch::Tensor &step) {
  Policy pi;
  std::vector<torch::Tensor> params = pi->parameters();
  auto theta = torch::nn::utils::parameters_to_vector(params) + step;
  torch::nn::utils::vector_to_parameters(theta, params);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'vector_to_parameters' updates parameter 'features.weight' in place twice per pass over the list (also as 'head.0.weight'); the list holds it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-24]]:16: note: 'features' and '0' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-24]]:58: note: and here
}

void flatStep(const std::vector<torch::Tensor> &params, const torch::Tensor &step) {
  auto theta = torch::nn::utils::parameters_to_vector(params) + step;
  torch::nn::utils::vector_to_parameters(theta, params);
}

void clipAll(const std::vector<torch::Tensor> &params) {
  torch::nn::utils::clip_grad_norm_(params, 1.0);
}

// The list reaches the sink in a helper it is given to.
void PositiveHelperGivenTheList(const torch::Tensor &step) {
  Policy pi;
  std::vector<torch::Tensor> params = pi->parameters();
  flatStep(params, step);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'flatStep' gives 'vector_to_parameters' a list that holds parameter 'features.weight' twice (also as 'head.0.weight'); each pass updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-13]]:3: note: the list reaches 'vector_to_parameters' here
  // CHECK-NOTES: :[[@LINE-44]]:16: note: 'features' and '0' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-44]]:58: note: and here
  clipAll(params);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clipAll' gives 'clip_grad_norm_' a list that holds parameter 'features.weight' twice (also as 'head.0.weight'); the total norm counts it twice and its gradient is scaled twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-14]]:3: note: the list reaches 'clip_grad_norm_' here
  // CHECK-NOTES: :[[@LINE-49]]:16: note: 'features' and '0' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-49]]:58: note: and here
}

// Each tensor once.
void NegativeDistinctLayers(const torch::Tensor &step) {
  TwoLayers net;
  std::vector<torch::Tensor> params = net->parameters();
  flatStep(params, step);
  auto theta = torch::nn::utils::parameters_to_vector(params) + step;
  torch::nn::utils::vector_to_parameters(theta, params);
}

// Only the head's list: the shared layer once.
void NegativeHeadOnly(const torch::Tensor &step) {
  Policy pi;
  std::vector<torch::Tensor> params = pi->head->parameters();
  flatStep(params, step);
}
