// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Lists appended to by standard algorithms through an inserter (Note [Lists
// appended to by standard algorithms]), and lists filtered by
// requires_grad(), in a loop or in a std::copy_if predicate (Note [Lists
// filtered by requires_grad()]).

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

// The trainable parameters, then the head's again "to be sure".
void PositiveCopyIfThenCopy() {
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
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'clip_grad_norm_' is given a list that holds parameter 'head.weight' twice (also as 'weight'); the total norm counts it twice and its gradient is scaled twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-7]]:21: note: the parameters of 'model' include those of its submodule 'head'
  // CHECK-NOTES: :[[@LINE-5]]:28: note: and the submodule's are added again here
}

// A loop that keeps what requires grad, then the head by std::copy.
void PositiveLoopFilterThenCopy() {
  Detector model;
  std::vector<torch::Tensor> params;
  for (const auto &p : model->parameters())
    if (p.requires_grad())
      params.push_back(p);
  auto head = model->head->parameters();
  std::copy(head.begin(), head.end(), std::back_inserter(params));
  torch::optim::SGD opt(params, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'head.weight' twice (also as 'weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-7]]:31: note: the parameters of 'model' include those of its submodule 'head'
  // CHECK-NOTES: :[[@LINE-5]]:28: note: and the submodule's are added again here
}

// One module's parameters inserted, then copied in again.
void PositiveInsertThenCopy(torch::nn::Linear &fc) {
  std::vector<torch::Tensor> params;
  params.insert(params.end(), fc->parameters().begin(), fc->parameters().end());
  auto own = fc->parameters();
  std::copy(own.begin(), own.end(), std::inserter(params, params.end()));
  torch::optim::SGD opt(params, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-5]]:35: note: the parameters of one module are added to the list here
  // CHECK-NOTES: :[[@LINE-5]]:18: note: and again here
}

// The head is frozen, so the filter leaves it out and it is added once.
void NegativeFrozenHeadAddedOnce() {
  Detector model;
  for (auto &p : model->head->parameters())
    p.requires_grad_(false);
  std::vector<torch::Tensor> trainable;
  auto all = model->parameters();
  std::copy_if(all.begin(), all.end(), std::back_inserter(trainable),
               [](const torch::Tensor &p) { return p.requires_grad(); });
  auto head = model->head->parameters();
  std::copy(head.begin(), head.end(), std::back_inserter(trainable));
  torch::nn::utils::clip_grad_norm_(trainable, 1.0);
}

// Only the stem, then the head: disjoint.
void NegativeDisjointCopies() {
  Detector model;
  std::vector<torch::Tensor> params;
  auto stem = model->stem->parameters();
  auto head = model->head->parameters();
  std::copy(stem.begin(), stem.end(), std::back_inserter(params));
  std::copy(head.begin(), head.end(), std::back_inserter(params));
  torch::optim::SGD opt(params, 0.1);
}

// Tensors this function makes are no parameters: freezing them changes
// nothing about the model's.
void NegativeFreshTensorsFrozen(const torch::Tensor &x) {
  auto h = torch::zeros({4, 8});
  h.detach_();
  auto target = x.clone();
  target.requires_grad_(false);
}

// A predicate that reads something else: the list is unknown.
void NegativeOtherPredicate() {
  Detector model;
  std::vector<torch::Tensor> params;
  auto all = model->parameters();
  std::copy_if(all.begin(), all.end(), std::back_inserter(params),
               [](const torch::Tensor &p) { return p.dim() > 1; });
  auto head = model->head->parameters();
  std::copy(head.begin(), head.end(), std::back_inserter(params));
  torch::optim::SGD opt(params, 0.1);
}

// std::transform is not followed.
void NegativeTransform(torch::nn::Linear &fc) {
  std::vector<torch::Tensor> params;
  auto own = fc->parameters();
  std::transform(own.begin(), own.end(), std::back_inserter(params),
                 [](const torch::Tensor &p) { return p.clone(); });
  std::copy(own.begin(), own.end(), std::back_inserter(params));
  torch::optim::SGD opt(params, 0.1);
}
