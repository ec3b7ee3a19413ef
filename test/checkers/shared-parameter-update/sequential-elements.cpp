// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// An element of a Sequential taken by index is the module registered under
// that index (Note [Elements of a Sequential by index]).

#include <torch/torch.h>

// A second network built around the first network's input layer.
struct BeamImpl : torch::nn::Module {
  BeamImpl() {
    u_net = register_module(
        "u_net", torch::nn::Sequential(torch::nn::Linear(1, 16), torch::nn::ReLU(),
                                       torch::nn::Linear(16, 1)));
    m_net = register_module(
        "m_net", torch::nn::Sequential(u_net->ptr<torch::nn::LinearImpl>(0),
                                       torch::nn::ReLU(), torch::nn::Linear(16, 1)));
  }
  torch::nn::Sequential u_net{nullptr}, m_net{nullptr};
};
TORCH_MODULE(Beam);

// The same with at<T>(), the element itself.
struct TiedImpl : torch::nn::Module {
  TiedImpl() {
    body = register_module("body", torch::nn::Sequential(torch::nn::Linear(4, 4),
                                                         torch::nn::Linear(4, 4)));
    last = register_module("last", body->ptr<torch::nn::LinearImpl>(1));
  }
  torch::nn::Sequential body{nullptr};
  std::shared_ptr<torch::nn::LinearImpl> last;
};
TORCH_MODULE(Tied);

// A fresh layer in the second network: nothing shared.
struct FreshImpl : torch::nn::Module {
  FreshImpl() {
    u_net = register_module("u_net", torch::nn::Sequential(torch::nn::Linear(1, 16)));
    m_net = register_module("m_net", torch::nn::Sequential(torch::nn::Linear(1, 16)));
  }
  torch::nn::Sequential u_net{nullptr}, m_net{nullptr};
};
TORCH_MODULE(Fresh);

void PositiveSharedInputLayer() {
  Beam model;
  torch::optim::SGD opt(model->parameters(), 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'u_net.0.weight' twice (also as 'm_net.0.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-36]]:40: note: '0' and '0' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-34]]:40: note: and here
}

void PositiveElementRegisteredAgain() {
  Tied model;
  torch::optim::SGD opt(model->parameters(), 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'body.1.weight' twice (also as 'last.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-30]]:58: note: '1' and 'last' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-30]]:12: note: and here
}

void NegativeFreshLayers() {
  Fresh model;
  torch::optim::SGD opt(model->parameters(), 0.1);
}

// The element's own parameters, once.
void NegativeElementAlone() {
  Beam model;
  torch::optim::SGD opt(model->u_net->ptr<torch::nn::LinearImpl>(0)->parameters(), 0.1);
}
