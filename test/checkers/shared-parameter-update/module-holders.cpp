// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// An object that is not a module but holds modules builds them as a
// module's constructor would (Note [Objects that hold modules]): an agent
// whose actor and critic are given one encoder shares its parameters.

#include <torch/torch.h>

#include <vector>

struct Agent {
  Agent()
      : encoder(4, 8), actor(encoder, torch::nn::Linear(8, 2)),
        critic(encoder, torch::nn::Linear(8, 1)) {}
  torch::nn::Linear encoder;
  torch::nn::Sequential actor;
  torch::nn::Sequential critic;

  std::vector<torch::Tensor> allParameters() const {
    auto ps = actor->parameters();
    auto qs = critic->parameters();
    ps.insert(ps.end(), qs.begin(), qs.end());
    return ps;
  }
};

// Two encoders: the same shape of object, nothing shared.
struct SeparateAgent {
  SeparateAgent()
      : actor(torch::nn::Linear(4, 8), torch::nn::Linear(8, 2)),
        critic(torch::nn::Linear(4, 8), torch::nn::Linear(8, 1)) {}
  torch::nn::Sequential actor;
  torch::nn::Sequential critic;

  std::vector<torch::Tensor> allParameters() const {
    auto ps = actor->parameters();
    auto qs = critic->parameters();
    ps.insert(ps.end(), qs.begin(), qs.end());
    return ps;
  }
};

static void softUpdate(const std::vector<torch::Tensor> &target,
                       const std::vector<torch::Tensor> &online, double tau) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < target.size(); ++i)
    target[i].mul_(1.0 - tau).add_(online[i], tau);
}

void PositiveMembersConcatenated() {
  Agent agent;
  auto ps = agent.actor->parameters();
  auto qs = agent.critic->parameters();
  ps.insert(ps.end(), qs.begin(), qs.end());
  torch::optim::Adam opt(ps, 1e-3);
  // CHECK-NOTES: :[[@LINE-1]]:22: warning: 'Adam' is built from a list that holds parameter '0.weight' twice; each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the module once [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-44]]:30: note: '0' and '0' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-44]]:16: note: and here
}

void PositiveListFromAMethod(Agent &target, Agent &online) {
  torch::optim::SGD opt(online.allParameters(), 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'SGD' is built from a list that holds parameter '0.weight' twice
  // CHECK-NOTES: :[[@LINE-51]]:30: note: '0' and '0' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-51]]:16: note: and here
  softUpdate(target.allParameters(), online.allParameters(), 0.005);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: 'softUpdate' updates parameter '0.weight' in place twice per pass over the list; the list holds it twice
  // CHECK-NOTES: :[[@LINE-55]]:30: note: '0' and '0' are the same module, registered here
  // CHECK-NOTES: :[[@LINE-55]]:16: note: and here
}

void NegativeSeparateEncoders(SeparateAgent &target, SeparateAgent &online) {
  torch::optim::SGD opt(online.allParameters(), 0.1);
  softUpdate(target.allParameters(), online.allParameters(), 0.005);
}

void NegativeTwoAgentsEachOnce(Agent &a, Agent &b) {
  auto ps = a.actor->parameters();
  auto qs = b.critic->parameters();
  ps.insert(ps.end(), qs.begin(), qs.end());
  torch::optim::SGD opt(ps, 0.1);
}
