// CASE: an actor-critic with separate actor and critic encoders, both
//       initialised from one pretrained weight by registering that tensor
//       under both names; each side has its own optimizer
// SOURCE: the kind of code in PPO / A2C implementations that start separate
//         actor and critic trunks from the same pretrained encoder
// KIND: bug
// HARM: the two encoders are one tensor: the actor's optimizer step moves the
//       critic's encoder (and the critic's step moves the actor's)
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct ActorCriticImpl : torch::nn::Module {
  explicit ActorCriticImpl(const torch::Tensor& pretrained) {
    actor_enc = register_parameter("actor_enc", pretrained);  // BUG(libtorch-shared-parameter-update)
    critic_enc = register_parameter("critic_enc", pretrained);  // BUG(libtorch-shared-parameter-update)
    pi = register_module("pi", torch::nn::Linear(16, 2));
    v = register_module("v", torch::nn::Linear(16, 1));
  }
  torch::Tensor policy_logits(const torch::Tensor& obs) {
    return pi(torch::relu(torch::nn::functional::linear(obs, actor_enc)));
  }
  torch::Tensor value(const torch::Tensor& obs) {
    return v(torch::relu(torch::nn::functional::linear(obs, critic_enc))).squeeze(1);
  }
  torch::Tensor actor_enc, critic_enc;
  torch::nn::Linear pi{nullptr}, v{nullptr};
};
TORCH_MODULE(ActorCritic);

int main() {
  torch::manual_seed(0);
  auto pretrained = torch::randn({16, 8}) * 0.3;  // stands for a loaded encoder
  ActorCritic ac(pretrained);
  torch::optim::Adam actor_opt(
      std::vector<torch::Tensor>{ac->actor_enc, ac->pi->weight, ac->pi->bias},  // BUG(libtorch-shared-parameter-update)
      torch::optim::AdamOptions(3e-3));
  torch::optim::Adam critic_opt(
      std::vector<torch::Tensor>{ac->critic_enc, ac->v->weight, ac->v->bias},  // BUG(libtorch-shared-parameter-update)
      torch::optim::AdamOptions(1e-2));

  auto obs = torch::randn({64, 8});
  auto actions = torch::randint(0, 2, {64});
  auto advantages = torch::randn({64});
  auto returns = torch::randn({64});

  auto critic_before = ac->critic_enc.detach().clone();

  auto logp = torch::log_softmax(ac->policy_logits(obs), 1)
                  .gather(1, actions.unsqueeze(1)).squeeze(1);
  auto actor_loss = -(logp * advantages).mean();
  actor_opt.zero_grad();
  actor_loss.backward();
  actor_opt.step();  // BUG(libtorch-shared-parameter-update)

  double moved = (ac->critic_enc.detach() - critic_before).abs().max().item<double>();

  auto critic_loss = torch::mse_loss(ac->value(obs), returns);
  critic_opt.zero_grad();
  critic_loss.backward();
  critic_opt.step();  // BUG(libtorch-shared-parameter-update)

  if (moved > 1e-8) {
    std::cout << "HARM: the actor's step moved the critic's encoder by " << moved
              << " (one tensor under two names)\n";
  } else {
    std::cout << "critic encoder untouched by the actor's step\n";
  }
  return 0;
}
