// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Module graphs edited after construction: replace_module, and
// register_module/register_parameter called on a module from outside its
// constructor, store the handle they are given.

#include <torch/torch.h>

struct EncoderHeadImpl : torch::nn::Module {
  EncoderHeadImpl() {
    encoder = register_module("encoder", torch::nn::Linear(4, 4));
    head = register_module("head", torch::nn::Linear(4, 4));
  }
  torch::nn::Linear encoder{nullptr}, head{nullptr};
};
TORCH_MODULE(EncoderHead);

void PositiveReplaceWithSibling() {
  EncoderHead model;
  model->replace_module("head", model->encoder);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'encoder.weight' twice (also as 'head.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once
  // CHECK-NOTES: :[[@LINE-12]]:15: note: 'encoder' and 'head' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-4]]:10: note: and here
}

// Replacing a head by a fresh module is the common use, and shares nothing.
void NegativeReplaceWithFresh(EncoderHead &model) {
  model->replace_module("head", torch::nn::Linear(4, 2));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
}

void PositiveRegisterModuleOutside(torch::nn::Linear &shared) {
  torch::nn::Sequential model;
  model->register_module("a", shared);
  model->register_module("b", shared);
  torch::optim::Adam opt(model->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'a.weight' twice (also as 'b.weight'); each step() updates it twice
  // CHECK-NOTES: :[[@LINE-4]]:10: note: 'a' and 'b' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-4]]:10: note: and here
}

void PositiveRegisterParameterOfAnother(EncoderHead &model,
                                        torch::nn::Linear &decoder) {
  decoder->register_parameter("tied", model->encoder->weight);
  auto params = model->parameters();
  auto more = decoder->parameters();
  params.insert(params.end(), more.begin(), more.end());
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'encoder.weight' twice (also as 'tied'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once
  // CHECK-NOTES: :[[@LINE-40]]:42: note: 'encoder.weight' and 'tied' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-7]]:12: note: and here
}

void NegativeRegisterFreshParameter(torch::nn::Linear &decoder) {
  decoder->register_parameter("scale", torch::ones({1}));
  torch::optim::SGD opt(decoder->parameters(), torch::optim::SGDOptions(0.1));
}
