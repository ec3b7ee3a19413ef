// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Note [Edits made by a method of the module]: a method of the module class
// that edits its own registrations edits the module it is called on.

#include <torch/torch.h>

struct Seq2SeqImpl : torch::nn::Module {
  Seq2SeqImpl() {
    enc_in = register_module("enc_in", torch::nn::Linear(4, 8));
    dec_in = register_module("dec_in", torch::nn::Linear(4, 8));
  }
  void tie_inputs() { dec_in = replace_module("dec_in", enc_in); }
  void untie_inputs() {
    dec_in = replace_module("dec_in", torch::nn::Linear(4, 8));
  }
  void share_scale() { register_parameter("enc_scale", enc_in->weight); }
  torch::nn::Linear enc_in{nullptr}, dec_in{nullptr};
};
TORCH_MODULE(Seq2Seq);

void PositiveMethodReplacesWithAnotherSubmodule() {
  Seq2Seq model;
  model->tie_inputs();
  torch::optim::Adam opt(model->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'enc_in.weight' twice (also as 'dec_in.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-17]]:14: note: 'enc_in' and 'dec_in' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-15]]:32: note: and here
}

void PositiveMethodRegistersAMemberTensor() {
  Seq2Seq model;
  model->share_scale();
  torch::optim::Adam opt(model->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'enc_in.weight' twice (also as 'enc_scale'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-26]]:40: note: 'enc_in.weight' and 'enc_scale' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-20]]:24: note: and here
}

void NegativeMethodReplacesWithAFreshModule() {
  Seq2Seq model;
  model->untie_inputs();
  torch::optim::Adam opt(model->parameters());
}

void NegativeNoEditingMethodCalled() {
  Seq2Seq model;
  torch::optim::Adam opt(model->parameters());
}
