// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// A helper that takes the model and returns an optimizer built from its
// parameters is a sink at each call: the sharing may be built by the caller.

#include <torch/torch.h>

#include <set>

std::unique_ptr<torch::optim::SGD> makeOptimizer(torch::nn::Sequential &model) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(model->parameters());
  return std::make_unique<torch::optim::SGD>(groups,
                                             torch::optim::SGDOptions(0.1));
}

void PositiveCallerSharesAModule() {
  torch::nn::Linear shared(4, 4);
  torch::nn::Sequential model(shared, shared);
  auto opt = makeOptimizer(model);
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'makeOptimizer' gives 'SGD' a list that holds parameter '0.weight' twice (also as '1.weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once
  // CHECK-NOTES: :[[@LINE-9]]:10: note: the list reaches 'SGD' here
  // CHECK-NOTES: :[[@LINE-4]]:31: note: '0' and '1' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-5]]:39: note: and here
}

void NegativeCallerDistinctModules() {
  torch::nn::Sequential model(torch::nn::Linear(4, 4), torch::nn::Linear(4, 4));
  auto opt = makeOptimizer(model);
}

// Two modules given to a helper that puts both in the optimizer.
torch::optim::Adam makeJoint(torch::nn::Linear &a, torch::nn::Linear &b) {
  auto params = a->parameters();
  auto more = b->parameters();
  params.insert(params.end(), more.begin(), more.end());
  return torch::optim::Adam(params);
}

void PositiveSameModuleTwice(torch::nn::Linear &lin) {
  auto opt = makeJoint(lin, lin);
  // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'makeJoint' gives 'Adam' a list that holds parameter 'weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or add the module's parameters once
  // CHECK-NOTES: :[[@LINE-6]]:10: note: the list reaches 'Adam' here
  // CHECK-NOTES: :[[@LINE-10]]:20: note: the parameters of one module are added to the list here
  // CHECK-NOTES: :[[@LINE-10]]:18: note: and again here
}

void NegativeTwoModules(torch::nn::Linear &enc, torch::nn::Linear &dec) {
  auto opt = makeJoint(enc, dec);
}

// A hand-written optimizer whose step() updates each parameter of the module
// it is given is a sink at each call, as an optimizer built there would be.
class MomentumStep {
public:
  void step(torch::nn::Module &model) {
    torch::NoGradGuard no_grad;
    for (auto &item : model.named_parameters()) {
      auto &p = item.value();
      p.sub_(p.grad() * 0.1);
    }
  }
  void dedupStep(torch::nn::Module &model) {
    torch::NoGradGuard no_grad;
    std::set<const void *> seen;
    for (auto &p : model.parameters()) {
      if (!seen.insert(p.data_ptr()).second)
        continue;
      p.sub_(p.grad() * 0.1);
    }
  }
};

void PositiveManualOptimizerGivenASharedModule() {
  torch::nn::Linear shared(4, 4);
  torch::nn::Sequential model(shared, shared);
  MomentumStep opt;
  opt.step(*model);
  // CHECK-NOTES: :[[@LINE-1]]:7: warning: 'step' updates each parameter of the module it is given in place, and the list holds parameter '0.weight' twice (also as '1.weight'); each call updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-20]]:9: note: 'sub_' updates the parameter here
  // CHECK-NOTES: :[[@LINE-5]]:31: note: '0' and '1' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-6]]:39: note: and here
}

void NegativeManualOptimizerDistinctOrDeduplicated() {
  torch::nn::Sequential model(torch::nn::Linear(4, 4), torch::nn::Linear(4, 4));
  MomentumStep opt;
  opt.step(*model);
  torch::nn::Linear shared(4, 4);
  torch::nn::Sequential tied(shared, shared);
  opt.dedupStep(*tied);
}

// A helper that updates in place each entry of a list it is given (a soft
// update of a target network) is an update loop over the caller's list.
static void softUpdate(const std::vector<torch::Tensor> &target,
                       const std::vector<torch::Tensor> &online, double tau) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < target.size(); ++i)
    target[i].mul_(1.0 - tau).add_(online[i], tau);
}

void PositiveSoftUpdateOfAConcatenation(torch::nn::Linear &online) {
  torch::nn::Linear encoder(4, 4);
  torch::nn::Sequential actor(encoder, torch::nn::Linear(4, 2));
  torch::nn::Sequential critic(encoder, torch::nn::Linear(4, 1));
  auto target = actor->parameters();
  auto critics = critic->parameters();
  target.insert(target.end(), critics.begin(), critics.end());
  softUpdate(target, online->parameters(), 0.05);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'softUpdate' updates parameter '0.weight' in place twice per pass over the list; the list holds it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-7]]:31: note: '0' and '0' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-7]]:32: note: and here
}

void NegativeSoftUpdateOfDistinctModules(torch::nn::Linear &online) {
  torch::nn::Sequential actor(torch::nn::Linear(4, 4), torch::nn::Linear(4, 2));
  torch::nn::Sequential critic(torch::nn::Linear(4, 4), torch::nn::Linear(4, 1));
  auto target = actor->parameters();
  auto critics = critic->parameters();
  target.insert(target.end(), critics.begin(), critics.end());
  softUpdate(target, online->parameters(), 0.05);
}
