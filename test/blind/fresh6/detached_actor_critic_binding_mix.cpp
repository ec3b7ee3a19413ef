// CASE: an actor-critic forward returns (probs, value) as a std::tuple that
//       the rollout code unpacks with a structured binding; epsilon
//       exploration is mixed into probs in place under a NoGradGuard
//       "because it is only used for sampling", and the policy-gradient loss
//       is then built from the same probs
// SOURCE: the kind of code from A2C/PPO ports to libtorch (epsilon-soft
//         behaviour policies); the "modified by an inplace operation" error
//         that follows in-place edits of a softmax output, see the PyTorch
//         0.4 migration guide quoted at https://e-com-net.com/article/1279942790742032384.htm
// KIND: bug
// HARM: loss.backward() throws: the softmax output it saved was modified
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
  torch::manual_seed(41);
  const int64_t n_env = 16, obs_dim = 10, n_actions = 5;
  const double eps = 0.1, gamma = 0.99;
  ActorCritic ac(obs_dim, n_actions);
  torch::optim::RMSprop opt(ac->parameters(), torch::optim::RMSpropOptions(7e-4).alpha(0.99).eps(1e-5));

  auto obs = torch::randn({n_env, obs_dim});
  auto [probs, value] = ac->forward(obs);                         // BUG(libtorch-detached-write)
  {
    torch::NoGradGuard no_grad;
    probs.mul_(1.0 - eps).add_(eps / n_actions);                  // BUG(libtorch-detached-write)
  }
  auto actions = probs.multinomial(1);

  // One-step returns from a made-up reward and bootstrap value.
  auto reward = torch::randn({n_env});
  auto next_value = torch::randn({n_env});
  auto returns = reward + gamma * next_value;
  auto advantage = (returns - value).detach();

  auto logp = probs.gather(1, actions).squeeze(1).log();
  auto loss = -(logp * advantage).mean() + 0.5 * (returns - value).pow(2).mean();
  std::cout << "loss " << loss.item<float>() << "\n";
  try {
    opt.zero_grad();
    loss.backward();                                              // BUG(libtorch-detached-write)
    opt.step();
    std::cout << "update applied\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
