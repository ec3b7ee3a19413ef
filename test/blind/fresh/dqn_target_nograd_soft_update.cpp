// CASE: DQN/DDPG-style learn step that computes the TD target with the
//       target network under NoGradGuard, soft-updates the target network,
//       then runs the online network's backward
// SOURCE: the kind of code in DDPG / DQN implementations with Polyak
//         averaging (soft_update(target, online, tau))
// KIND: near-miss
// WHY-OK: the target network's forward ran under NoGradGuard, so nothing of
//         it is saved for backward; the target is a clone, a separate module,
//         and the online weights are only read by the update
#include <torch/torch.h>

#include <iostream>
#include <memory>

struct QNetImpl : torch::nn::Cloneable<QNetImpl> {
  QNetImpl(int64_t obs_dim, int64_t n_actions) : obs_dim(obs_dim), n_actions(n_actions) {
    reset();
  }
  void reset() override {
    fc1 = register_module("fc1", torch::nn::Linear(obs_dim, 32));
    fc2 = register_module("fc2", torch::nn::Linear(32, n_actions));
  }
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x))); }
  int64_t obs_dim, n_actions;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(QNet);

static void soft_update(QNet& target, QNet& online, double tau) {
  torch::NoGradGuard no_grad;
  auto tp = target->parameters();
  auto op = online->parameters();
  for (size_t i = 0; i < tp.size(); ++i) tp[i].mul_(1.0 - tau).add_(op[i], tau);
}

static torch::Tensor learn(QNet& online, QNet& target, torch::optim::Adam& opt,
                           const torch::Tensor& obs, const torch::Tensor& actions,
                           const torch::Tensor& rewards, const torch::Tensor& next_obs,
                           bool update_first) {
  auto q = online(obs).gather(1, actions).squeeze(1);
  torch::Tensor next_q;
  {
    torch::NoGradGuard no_grad;
    next_q = std::get<0>(target(next_obs).max(1));
  }
  auto loss = torch::mse_loss(q, rewards + 0.99 * next_q);
  if (update_first) soft_update(target, online, 0.05);
  opt.zero_grad();
  loss.backward();
  auto g = online->fc1->weight.grad().clone();
  if (!update_first) soft_update(target, online, 0.05);
  opt.step();
  return g;
}

int main() {
  torch::manual_seed(0);
  QNet online(4, 2);
  QNet target(std::dynamic_pointer_cast<QNetImpl>(online->clone()));
  QNet ref_online(std::dynamic_pointer_cast<QNetImpl>(online->clone()));
  QNet ref_target(std::dynamic_pointer_cast<QNetImpl>(online->clone()));
  torch::optim::Adam opt(online->parameters(), torch::optim::AdamOptions(1e-3));
  torch::optim::Adam ref_opt(ref_online->parameters(), torch::optim::AdamOptions(1e-3));

  double worst = 0.0;
  for (int step = 0; step < 5; ++step) {
    auto obs = torch::randn({32, 4});
    auto next_obs = torch::randn({32, 4});
    auto actions = torch::randint(0, 2, {32, 1});
    auto rewards = torch::randn({32});
    auto g = learn(online, target, opt, obs, actions, rewards, next_obs, true);
    auto r = learn(ref_online, ref_target, ref_opt, obs, actions, rewards, next_obs, false);
    worst = std::max(worst, (g - r).abs().max().item<double>());
  }
  std::cout << (worst < 1e-6 ? "ok: " : "MISMATCH: ")
            << "gradients match the update-after-backward order (max diff "
            << worst << ")\n";
  return 0;
}
