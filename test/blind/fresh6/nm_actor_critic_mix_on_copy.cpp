// CASE: an actor-critic forward returns (probs, value) as a std::tuple that
//       the rollout unpacks with a structured binding; epsilon exploration is
//       mixed in place under a NoGradGuard for the behaviour policy, and the
//       importance-weighted policy-gradient loss is built from probs
// SOURCE: the kind of code from A2C/PPO ports to libtorch with
//         epsilon-soft behaviour policies
// KIND: near-miss
// WHY-OK: the in-place mixing runs on probs.detach().mul(...), a new
//         tensor; the softmax output autograd saved is never written
#include <torch/torch.h>

#include <iostream>
#include <tuple>

struct ActorCriticImpl : torch::nn::Module {
  ActorCriticImpl(int64_t obs, int64_t actions)
      : body(register_module("body", torch::nn::Linear(obs, 64))),
        pi(register_module("pi", torch::nn::Linear(64, actions))),
        v(register_module("v", torch::nn::Linear(64, 1))) {}
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& obs) {
    auto h = torch::relu(body(obs));
    return {torch::softmax(pi(h), -1), v(h).squeeze(-1)};
  }
  torch::nn::Linear body, pi, v;
};
TORCH_MODULE(ActorCritic);

int main() {
  torch::manual_seed(83);
  const int64_t n_env = 16, obs_dim = 10, n_actions = 5;
  const double eps = 0.1, gamma = 0.99;
  ActorCritic ac(obs_dim, n_actions);
  torch::optim::RMSprop opt(ac->parameters(), torch::optim::RMSpropOptions(7e-4).alpha(0.99).eps(1e-5));

  auto obs = torch::randn({n_env, obs_dim});
  auto [probs, value] = ac->forward(obs);
  torch::Tensor behaviour;
  {
    torch::NoGradGuard no_grad;
    behaviour = probs.detach().mul(1.0 - eps);
    behaviour.add_(eps / n_actions);
  }
  auto actions = behaviour.multinomial(1);

  auto reward = torch::randn({n_env});
  auto next_value = torch::randn({n_env});
  auto returns = reward + gamma * next_value;
  auto advantage = (returns - value).detach();

  auto p = probs.gather(1, actions).squeeze(1);
  auto mu = behaviour.gather(1, actions).squeeze(1);
  auto ratio = (p / mu).clamp_max(1.0);
  auto loss = -(ratio.detach() * p.log() * advantage).mean() + 0.5 * (returns - value).pow(2).mean();
  opt.zero_grad();
  loss.backward();
  opt.step();
  std::cout << "loss " << loss.item<float>() << ", value-head grad norm "
            << ac->v->weight.grad().norm().item<float>() << "\n";
  return 0;
}
