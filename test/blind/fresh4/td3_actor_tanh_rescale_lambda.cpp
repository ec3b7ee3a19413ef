// CASE: a TD3 actor squashes its output with tanh and then rescales it to
//       the environment's action range with a small lambda that multiplies
//       the tensor in place; tanh saved that output for its backward, so the
//       actor update through the critic fails
// SOURCE: libtorch ports of TD3/DDPG actors (max_action * tanh(...));
//         https://github.com/pytorch/pytorch/issues/1321 and
//         https://github.com/coarse-graining/cgnet/issues/63 (TanhBackward
//         output modified by an inplace operation)
// KIND: bug
// HARM: the actor's backward throws "modified by an inplace operation"
#include <torch/torch.h>

#include <iostream>
#include <sstream>

struct ActorImpl : torch::nn::Module {
  ActorImpl(int64_t obs, int64_t act, double max_action)
      : l1(register_module("l1", torch::nn::Linear(obs, 64))),
        l2(register_module("l2", torch::nn::Linear(64, act))),
        max_action_(max_action) {}

  torch::Tensor forward(const torch::Tensor& state) {
    auto action = torch::tanh(l2(torch::relu(l1(state))));
    auto to_env_range = [this](torch::Tensor& a) { a.mul_(max_action_); };  // BUG(libtorch-detached-write)
    to_env_range(action);  // BUG(libtorch-detached-write)
    return action;
  }

  torch::nn::Linear l1, l2;
  double max_action_;
};
TORCH_MODULE(Actor);

struct CriticImpl : torch::nn::Module {
  CriticImpl(int64_t obs, int64_t act)
      : l1(register_module("l1", torch::nn::Linear(obs + act, 64))),
        l2(register_module("l2", torch::nn::Linear(64, 1))) {}
  torch::Tensor forward(const torch::Tensor& s, const torch::Tensor& a) {
    return l2(torch::relu(l1(torch::cat({s, a}, 1))));
  }
  torch::nn::Linear l1, l2;
};
TORCH_MODULE(Critic);

int main() {
  torch::manual_seed(0);
  Actor actor(11, 3, 2.0);
  Critic critic(11, 3);
  torch::optim::Adam actor_optimizer(actor->parameters(), torch::optim::AdamOptions(3e-4));

  auto states = torch::randn({64, 11});
  auto actor_loss = -critic->forward(states, actor->forward(states)).mean();
  actor_optimizer.zero_grad();
  try {
    actor_loss.backward();
    actor_optimizer.step();
    std::cout << "actor updated\n";
  } catch (const c10::Error& e) {
    std::istringstream msg(e.what());
    std::string first_line;
    std::getline(msg, first_line);
    std::cout << "HARM: actor update failed: " << first_line << "\n";
  }
  return 0;
}
