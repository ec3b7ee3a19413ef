// CASE: a DQN whose target network is made by copying the module holder
//       (QNet target = policy;), then kept "frozen" between syncs while the
//       policy network is stepped
// SOURCE: the kind of code in C++ ports of the PyTorch DQN tutorial
//         (pytorch.org/tutorials/intermediate/reinforcement_q_learning.html),
//         where target_net must be a separate copy of policy_net
// KIND: bug
// HARM: the holder copy shares the module, so every policy step moves the
//       target network too; its output drifts although no sync happened
#include <torch/torch.h>

#include <iostream>

struct QNetImpl : torch::nn::Module {
  QNetImpl(int64_t obs_dim, int64_t n_actions) {
    fc1 = register_module("fc1", torch::nn::Linear(obs_dim, 64));
    fc2 = register_module("fc2", torch::nn::Linear(64, n_actions));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(QNet);

int main() {
  torch::manual_seed(0);
  const double gamma = 0.99;
  const int sync_every = 1000;
  QNet policy(4, 2);
  QNet target = policy;  // BUG(libtorch-shared-parameter-update)
  target->eval();
  torch::optim::Adam opt(policy->parameters(), torch::optim::AdamOptions(1e-2));

  auto probe = torch::randn({16, 4});
  torch::Tensor frozen;
  {
    torch::NoGradGuard no_grad;
    frozen = target(probe).clone();
  }

  for (int step = 1; step <= 20; ++step) {
    auto obs = torch::randn({32, 4});
    auto next_obs = torch::randn({32, 4});
    auto actions = torch::randint(0, 2, {32, 1});
    auto rewards = torch::randn({32});

    auto q = policy(obs).gather(1, actions).squeeze(1);
    torch::Tensor next_q;
    {
      torch::NoGradGuard no_grad;
      next_q = std::get<0>(target->forward(next_obs).max(1));
    }
    auto loss = torch::smooth_l1_loss(q, rewards + gamma * next_q);
    opt.zero_grad();
    loss.backward();
    opt.step();  // BUG(libtorch-shared-parameter-update)

    if (step % sync_every == 0) {
      torch::NoGradGuard no_grad;
      auto src = policy->parameters();
      auto dst = target->parameters();
      for (size_t i = 0; i < src.size(); ++i) dst[i].copy_(src[i]);  // BUG(libtorch-shared-parameter-update)
    }
  }

  torch::NoGradGuard no_grad;
  double drift = (target(probe) - frozen).abs().max().item<double>();
  if (drift > 1e-6) {
    std::cout << "HARM: the target network moved by " << drift
              << " without a sync (it is the policy network)\n";
  } else {
    std::cout << "target network stayed frozen\n";
  }
  return 0;
}
