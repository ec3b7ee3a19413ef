// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A freezing call on a tensor the analysis does not name may freeze any
// parameter, so no parameter is known to require grad and a filter on
// requires_grad() leaves out what it would decide (Note [Lists filtered by
// requires_grad()]).

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

// The head is added once: the filtered part is left out.
void NegativeUnknownFreeze(std::vector<torch::Tensor> &frozen) {
  frozen[0].requires_grad_(false);
  Detector model;
  std::vector<torch::Tensor> trainable;
  auto all = model->parameters();
  std::copy_if(all.begin(), all.end(), std::back_inserter(trainable),
               [](const torch::Tensor &p) { return p.requires_grad(); });
  auto head = model->head->parameters();
  std::copy(head.begin(), head.end(), std::back_inserter(trainable));
  torch::nn::utils::clip_grad_norm_(trainable, 1.0);
}


// Without a filter the list is known all the same.
void PositiveUnfiltered() {
  Detector model;
  std::vector<torch::Tensor> params;
  auto all = model->parameters();
  std::copy(all.begin(), all.end(), std::back_inserter(params));
  auto head = model->head->parameters();
  std::copy(head.begin(), head.end(), std::back_inserter(params));
  torch::optim::SGD opt(params, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'head.weight' twice (also as 'weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-6]]:21: note: the parameters of 'model' include those of its submodule 'head'
  // CHECK-NOTES: :[[@LINE-5]]:28: note: and the submodule's are added again here
}
