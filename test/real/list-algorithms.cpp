// Ground truth for Note [Lists appended to by standard algorithms], Note
// [Lists filtered by requires_grad()], Note [Parameters set from a flat
// vector] and Note [Elements of a Sequential by index], on the real headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %real_torch

#include <torch/torch.h>

#include <algorithm>
#include <iterator>
#include <vector>

struct DetectorImpl : torch::nn::Module {
  DetectorImpl() {
    stem = register_module("stem", torch::nn::Linear(8, 8));
    head = register_module("head", torch::nn::Linear(8, 4));
  }
  torch::nn::Linear stem{nullptr}, head{nullptr};
};
TORCH_MODULE(Detector);

void PositiveTrainableThenHead() {
  Detector model;
  for (auto &p : model->stem->parameters())
    p.requires_grad_(false);
  std::vector<torch::Tensor> trainable;
  auto all = model->parameters();
  std::copy_if(all.begin(), all.end(), std::back_inserter(trainable),
               [](const torch::Tensor &p) { return p.requires_grad(); });
  auto head = model->head->parameters();
  std::copy(head.begin(), head.end(), std::back_inserter(trainable));
  torch::nn::utils::clip_grad_norm_(trainable, 1.0);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'head.weight' twice (also as 'weight'); the total norm counts it twice and its gradient is scaled twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
}

struct PolicyImpl : torch::nn::Module {
  PolicyImpl() {
    features = register_module("features", torch::nn::Linear(4, 32));
    mean_head = register_module(
        "mean_head", torch::nn::Sequential(features, torch::nn::Tanh(),
                                           torch::nn::Linear(32, 2)));
  }
  torch::nn::Linear features{nullptr};
  torch::nn::Sequential mean_head{nullptr};
};
TORCH_MODULE(Policy);

void flatStep(const std::vector<torch::Tensor> &params, const torch::Tensor &step) {
  torch::NoGradGuard no_grad;
  auto theta = torch::nn::utils::parameters_to_vector(params) + step;
  torch::nn::utils::vector_to_parameters(theta, params);
}

void PositiveFlatStep(const torch::Tensor &step) {
  Policy pi;
  std::vector<torch::Tensor> params = pi->parameters();
  flatStep(params, step);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'flatStep' gives 'vector_to_parameters' a list that holds parameter 'features.weight' twice (also as 'mean_head.0.weight'); each pass updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
}

struct BeamImpl : torch::nn::Module {
  BeamImpl() {
    u_net = register_module(
        "u_net", torch::nn::Sequential(torch::nn::Linear(1, 16), torch::nn::Tanh(),
                                       torch::nn::Linear(16, 1)));
    m_net = register_module(
        "m_net", torch::nn::Sequential(u_net->ptr<torch::nn::LinearImpl>(0),
                                       torch::nn::Tanh(), torch::nn::Linear(16, 1)));
  }
  torch::nn::Sequential u_net{nullptr}, m_net{nullptr};
};
TORCH_MODULE(Beam);

void PositiveSharedInputLayer() {
  Beam model;
  torch::optim::LBFGS opt(model->parameters(), torch::optim::LBFGSOptions(0.5));
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'LBFGS' is built from a list that holds parameter 'u_net.0.weight' twice (also as 'm_net.0.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
}

void NegativeStemOnly(const torch::Tensor &step) {
  Detector model;
  std::vector<torch::Tensor> params;
  auto stem = model->stem->parameters();
  std::copy(stem.begin(), stem.end(), std::back_inserter(params));
  flatStep(params, step);
}
