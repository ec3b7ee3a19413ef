// CASE: a factory returns the "frozen" target critic as a copy of the online
//       ModuleHolder (`QNet t = online; t->eval(); return t;`); the target is
//       meant to lag, but every online optimizer step moves it too
// SOURCE: https://github.com/andri27-ts/Reinforcement-Learning/issues/14
//         (target network pointing at the moving network)
// KIND: bug
// HARM: the TD target changes after an online update although the target
//       network was not synchronised
#include <torch/torch.h>

#include <cstdio>

struct CriticImpl : torch::nn::Module {
  CriticImpl() { fc = register_module("fc", torch::nn::Linear(3, 1)); }
  torch::Tensor forward(const torch::Tensor& x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Critic);

static Critic make_target(const Critic& online) {
  Critic target = online;  // BUG(libtorch-shared-parameter-update)
  target->eval();
  for (auto& p : target->parameters()) p.set_requires_grad(false);
  return target;  // BUG(libtorch-shared-parameter-update)
}

int main() {
  torch::manual_seed(19);
  Critic online;
  Critic target = make_target(online);  // BUG(libtorch-shared-parameter-update)
  for (auto& p : online->parameters()) p.set_requires_grad(true);
  torch::optim::SGD opt(online->parameters(), 0.5);

  auto next_obs = torch::randn({16, 3});
  torch::Tensor td_before;
  {
    torch::NoGradGuard g;
    td_before = target(next_obs);
  }

  auto obs = torch::randn({16, 3});
  auto ret = torch::randn({16, 1});
  opt.zero_grad();
  torch::mse_loss(online(obs), ret).backward();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  torch::Tensor td_after;
  {
    torch::NoGradGuard g;
    td_after = target(next_obs);
  }
  const double change = (td_after - td_before).abs().max().item<double>();
  std::printf("target value change after one online step: %.6g\n", change);
  if (change > 0) std::printf("HARM: the target network moved with the online network\n");
  return 0;
}
