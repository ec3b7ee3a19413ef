// CASE: a DDPG agent whose actor and critic share a state encoder does its
//       Polyak (soft) target update over the concatenation of the actor's and
//       the critic's parameters(); the shared encoder's tensors appear in both
//       lists, so the encoder is blended twice per update
// SOURCE: soft target updates "for target_param, param in
//       zip(target.parameters(), net.parameters())" as in DDPG/SAC/TD3 code,
//       ported to libtorch, in an agent with a shared image/state encoder;
//       cf. https://codefrydev.in/Reinforcement/curriculum/volume-03/chapter-05
// KIND: bug
// HARM: the target encoder tracks the online one at rate 1-(1-tau)^2 instead
//       of tau
#include <torch/torch.h>

#include <iostream>
#include <unordered_map>
#include <vector>

namespace {

struct ActorImpl : torch::nn::Module {
  explicit ActorImpl(torch::nn::Linear enc) {
    encoder = register_module("encoder", enc);
    head = register_module("head", torch::nn::Linear(8, 2));
  }
  torch::Tensor forward(const torch::Tensor& s) { return torch::tanh(head->forward(torch::relu(encoder->forward(s)))); }
  torch::nn::Linear encoder{nullptr}, head{nullptr};
};
TORCH_MODULE(Actor);

struct CriticImpl : torch::nn::Module {
  explicit CriticImpl(torch::nn::Linear enc) {
    encoder = register_module("encoder", enc);
    q = register_module("q", torch::nn::Linear(8 + 2, 1));
  }
  torch::Tensor forward(const torch::Tensor& s, const torch::Tensor& a) {
    return q->forward(torch::cat({torch::relu(encoder->forward(s)), a}, 1));
  }
  torch::nn::Linear encoder{nullptr}, q{nullptr};
};
TORCH_MODULE(Critic);

struct Agent {
  Agent() : encoder(4, 8), actor(encoder), critic(encoder) {}
  torch::nn::Linear encoder;
  Actor actor;
  Critic critic;

  std::vector<torch::Tensor> all_parameters() const {
    auto ps = actor->parameters();
    auto qs = critic->parameters();
    ps.insert(ps.end(), qs.begin(), qs.end());  // BUG(libtorch-shared-parameter-update)
    return ps;
  }
};

void soft_update(const std::vector<torch::Tensor>& target, const std::vector<torch::Tensor>& online, double tau) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < target.size(); ++i) {
    target[i].mul_(1.0 - tau).add_(online[i], tau);  // BUG(libtorch-shared-parameter-update)
  }
}

}  // namespace

int main() {
  torch::manual_seed(1);
  Agent online, target;
  {
    torch::NoGradGuard no_grad;
    auto t = target.all_parameters();
    auto o = online.all_parameters();
    for (size_t i = 0; i < t.size(); ++i) t[i].copy_(o[i]);
    // one optimizer step's worth of change on the online encoder
    online.encoder->weight.add_(1.0);
  }
  auto before = target.encoder->weight.detach().clone();
  const double tau = 0.05;

  soft_update(target.all_parameters(), online.all_parameters(), tau);  // BUG(libtorch-shared-parameter-update)

  auto expected = before * (1.0 - tau) + online.encoder->weight.detach() * tau;
  auto got = target.encoder->weight.detach();
  auto rate = ((got - before) / (online.encoder->weight.detach() - before)).mean().item<double>();
  std::cout << "target encoder moved at rate " << rate << " (tau = " << tau << ")\n";
  if (!torch::allclose(got, expected, 1e-6, 1e-6)) {
    std::cout << "HARM: the shared target encoder was blended twice per soft update (rate " << rate
              << " instead of " << tau << ")\n";
  }
  return 0;
}
