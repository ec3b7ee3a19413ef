// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Modules built by a base class's constructor, modules kept in a static,
// and std::for_each update loops (Notes [Modules built by a base class],
// [Modules kept in a static] and [Algorithms over a list]).

#include <torch/torch.h>

#include <algorithm>
#include <vector>

struct EncoderImpl : torch::nn::Module {
  EncoderImpl() { proj = register_module("proj", torch::nn::Linear(4, 4)); }
  torch::nn::Linear proj{nullptr};
};

// The derived class registers the inherited projection again.
struct ClassifierImpl : EncoderImpl {
  ClassifierImpl() {
    register_module("backbone_proj", proj);
    head = register_module("head", torch::nn::Linear(4, 3));
  }
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Classifier);

void PositiveInheritedModuleRegisteredAgain() {
  Classifier model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter 'proj.weight' twice (also as 'backbone_proj.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-18]]:26: note: 'proj' and 'backbone_proj' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-12]]:5: note: and here
}

// Negative: the derived class registers a module of its own.
struct TaggerImpl : EncoderImpl {
  TaggerImpl() { head = register_module("head", torch::nn::Linear(4, 3)); }
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Tagger);

void NegativeDerivedAddsItsOwn() {
  Tagger model;
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
}

// One router kept in a static, registered by every expert.
torch::nn::Linear &sharedRouter() {
  static torch::nn::Linear router(8, 1);
  return router;
}

struct ExpertImpl : torch::nn::Module {
  ExpertImpl() {
    ffn = register_module("ffn", torch::nn::Linear(8, 8));
    router = register_module("router", sharedRouter());
  }
  torch::nn::Linear ffn{nullptr}, router{nullptr};
};
TORCH_MODULE(Expert);

struct MixtureImpl : torch::nn::Module {
  MixtureImpl() {
    first = register_module("first", Expert());
    second = register_module("second", Expert());
  }
  Expert first{nullptr}, second{nullptr};
};
TORCH_MODULE(Mixture);

void PositiveStaticRouter() {
  Mixture moe;
  torch::optim::Adam opt(moe->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter 'first.router.weight' twice (also as 'second.router.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-11]]:13: note: one path to the shared module starts here
  // CHECK-NOTES: :[[@LINE-11]]:14: note: another starts here
  // CHECK-NOTES: :[[@LINE-21]]:14: note: both reach this registration of 'router' with the same module
}

// Negative: a factory that makes a new router at each call.
torch::nn::Linear makeRouter() { return torch::nn::Linear(8, 1); }

struct OwnRouterImpl : torch::nn::Module {
  OwnRouterImpl() { router = register_module("router", makeRouter()); }
  torch::nn::Linear router{nullptr};
};
TORCH_MODULE(OwnRouter);

struct PairImpl : torch::nn::Module {
  PairImpl() {
    first = register_module("first", OwnRouter());
    second = register_module("second", OwnRouter());
  }
  OwnRouter first{nullptr}, second{nullptr};
};
TORCH_MODULE(Pair);

void NegativeFactoryRouters() {
  Pair pair;
  torch::optim::Adam opt(pair->parameters());
}

// A hand-written SGD step as std::for_each over the list it is given.
void sgdStep(std::vector<torch::Tensor> &params, double lr) {
  torch::NoGradGuard no_grad;
  std::for_each(params.begin(), params.end(),
                [lr](torch::Tensor &p) { p.add_(p.grad(), -lr); });
}

void PositiveForEachStep() {
  Classifier model;
  auto params = model->parameters();
  sgdStep(params, 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'sgdStep' updates parameter 'proj.weight' in place twice per pass over the list (also as 'backbone_proj.weight'); the list holds it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-102]]:26: note: 'proj' and 'backbone_proj' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-96]]:5: note: and here
}

void NegativeForEachDistinct() {
  Tagger model;
  auto params = model->parameters();
  sgdStep(params, 0.1);
}
