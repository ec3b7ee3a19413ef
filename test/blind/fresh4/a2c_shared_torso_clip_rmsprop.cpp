// CASE: an A2C agent's actor and critic each register one shared
//       std::shared_ptr torso; the agent builds its RMSprop optimizer in its
//       constructor from trainable(), which concatenates the actor's and the
//       critic's parameters(), and clips the same list before each step: the
//       torso is listed twice, its gradient is scaled twice and it is stepped
//       twice
// SOURCE: libtorch reinforcement-learning agents (A2C/PPO ports with a
//         shared actor-critic torso, clip_grad_norm_ 0.5 and RMSprop as in
//         the reference implementations)
// KIND: bug
// HARM: the torso moves much further per update than the actor and critic heads
#include <torch/torch.h>

#include <iostream>
#include <memory>

struct TorsoImpl : torch::nn::Module {
  TorsoImpl(int64_t obs, int64_t hidden) : fc(register_module("fc", torch::nn::Linear(obs, hidden))) {}
  torch::Tensor forward(const torch::Tensor& x) { return torch::tanh(fc(x)); }
  torch::nn::Linear fc;
};

struct HeadImpl : torch::nn::Module {
  HeadImpl(std::shared_ptr<TorsoImpl> shared, int64_t hidden, int64_t out)
      : torso(register_module("torso", shared)), out(register_module("out", torch::nn::Linear(hidden, out))) {}
  torch::Tensor forward(const torch::Tensor& x) { return out(torso->forward(x)); }
  std::shared_ptr<TorsoImpl> torso;
  torch::nn::Linear out;
};

class Agent {
 public:
  Agent(int64_t obs, int64_t actions)
      : torso_(std::make_shared<TorsoImpl>(obs, 32)),
        actor_(std::make_shared<HeadImpl>(torso_, 32, actions)),
        critic_(std::make_shared<HeadImpl>(torso_, 32, 1)),
        optimizer_(trainable(), torch::optim::RMSpropOptions(7e-4).alpha(0.99).eps(1e-5)) {}  // BUG(libtorch-shared-parameter-update)

  std::vector<torch::Tensor> trainable() const {
    auto params = actor_->parameters();
    auto critic_params = critic_->parameters();  // BUG(libtorch-shared-parameter-update)
    params.insert(params.end(), critic_params.begin(), critic_params.end());  // BUG(libtorch-shared-parameter-update)
    return params;
  }

  void update(const torch::Tensor& obs, const torch::Tensor& actions, const torch::Tensor& returns) {
    auto log_probs = torch::log_softmax(actor_->forward(obs), 1).gather(1, actions).squeeze(1);
    auto values = critic_->forward(obs).squeeze(1);
    auto advantages = returns - values;
    auto loss = -(log_probs * advantages.detach()).mean() + 0.5 * advantages.pow(2).mean();
    optimizer_.zero_grad();
    loss.backward();
    torch::nn::utils::clip_grad_norm_(trainable(), 0.5);  // BUG(libtorch-shared-parameter-update)
    optimizer_.step();  // BUG(libtorch-shared-parameter-update)
  }

  std::shared_ptr<TorsoImpl> torso_;
  std::shared_ptr<HeadImpl> actor_;
  std::shared_ptr<HeadImpl> critic_;
  torch::optim::RMSprop optimizer_;
};

int main() {
  torch::manual_seed(0);
  Agent agent(6, 4);
  auto obs = torch::randn({32, 6});
  auto actions = torch::randint(0, 4, {32, 1});
  auto returns = torch::randn({32});

  auto torso_before = agent.torso_->fc->weight.detach().clone();
  auto actor_before = agent.actor_->out->weight.detach().clone();
  agent.update(obs, actions, returns);

  const double torso_move = (agent.torso_->fc->weight - torso_before).abs().median().item<double>();
  const double actor_move = (agent.actor_->out->weight - actor_before).abs().median().item<double>();
  std::cout << "median move per weight: torso " << torso_move << ", actor head " << actor_move << "\n";
  if (torso_move > 1.3 * actor_move)
    std::cout << "HARM: the shared torso moved " << torso_move << " per weight in one update, the actor head "
              << actor_move << " (one RMSprop step each)\n";
  return 0;
}
