// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Note [One tensor under two names in two optimizers]: one tensor that two
// optimizers step under two different registrations.

#include <torch/torch.h>

#include <vector>

struct ActorCriticImpl : torch::nn::Module {
  explicit ActorCriticImpl(const torch::Tensor &pretrained) {
    actor_enc = register_parameter("actor_enc", pretrained);
    critic_enc = register_parameter("critic_enc", pretrained);
    pi = register_module("pi", torch::nn::Linear(4, 2));
    v = register_module("v", torch::nn::Linear(4, 1));
  }
  torch::Tensor actor_enc, critic_enc;
  torch::nn::Linear pi{nullptr}, v{nullptr};
};
TORCH_MODULE(ActorCritic);

struct SharedTrunkImpl : torch::nn::Module {
  SharedTrunkImpl() {
    trunk = register_module("trunk", torch::nn::Linear(4, 4));
    pi = register_module("pi", torch::nn::Linear(4, 2));
    v = register_module("v", torch::nn::Linear(4, 1));
  }
  torch::nn::Linear trunk{nullptr}, pi{nullptr}, v{nullptr};
};
TORCH_MODULE(SharedTrunk);

void PositiveTwoNamesTwoOptimizers(const torch::Tensor &pretrained) {
  ActorCritic ac(pretrained);
  torch::optim::Adam actor_opt(std::vector<torch::Tensor>{ac->actor_enc, ac->pi->weight},
                               torch::optim::AdamOptions(1e-3));
  torch::optim::Adam critic_opt(std::vector<torch::Tensor>{ac->critic_enc, ac->v->weight},
                                torch::optim::AdamOptions(1e-2));
  // CHECK-NOTES: :[[@LINE-2]]:60: warning: 'Adam' steps parameter 'critic_enc', the same tensor as 'actor_enc', which another 'Adam' steps: one tensor registered under two names, so each optimizer's step() also moves the other's parameter; give it to one optimizer, or register a copy (clone()) if the two were meant to be separate [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-5]]:59: note: the other 'Adam' steps it here
  // CHECK-NOTES: :[[@LINE-28]]:17: note: 'actor_enc' and 'critic_enc' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-28]]:18: note: and here
}

// A tie made by registering another module's tensor, each module with its
// own optimizer.
void PositiveRegisteredElsewhere() {
  torch::nn::Linear enc(4, 4), dec(4, 4);
  dec->register_parameter("tied", enc->weight);
  torch::optim::SGD enc_opt(enc->parameters(), 0.1);
  torch::optim::SGD dec_opt(dec->parameters(), 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:34: warning: 'SGD' steps parameter 'tied', the same tensor as 'weight', which another 'SGD' steps
  // CHECK-NOTES: :[[@LINE-3]]:34: note: the other 'SGD' steps it here
  // CHECK-NOTES: :[[@LINE-6]]:21: note: 'weight' and 'tied' are the same tensor, registered here
  // CHECK-NOTES: :[[@LINE-6]]:8: note: and here
}

// A trunk that both optimizers step through its own registration: shared
// on purpose.
void NegativeSharedTrunk() {
  SharedTrunk m;
  auto actor = m->trunk->parameters();
  auto pi = m->pi->parameters();
  actor.insert(actor.end(), pi.begin(), pi.end());
  auto critic = m->trunk->parameters();
  auto v = m->v->parameters();
  critic.insert(critic.end(), v.begin(), v.end());
  torch::optim::SGD actor_opt(actor, 0.1);
  torch::optim::SGD critic_opt(critic, 0.1);
  torch::optim::SGD a(std::vector<torch::Tensor>{m->trunk->weight}, 0.1);
  torch::optim::SGD b(std::vector<torch::Tensor>{m->trunk->weight}, 0.1);
}

void NegativeDistinctTensors(const torch::Tensor &pretrained) {
  ActorCritic ac(pretrained.clone());
  torch::optim::Adam a(std::vector<torch::Tensor>{ac->pi->weight}, torch::optim::AdamOptions(1e-3));
  torch::optim::Adam b(std::vector<torch::Tensor>{ac->v->weight}, torch::optim::AdamOptions(1e-3));
}
