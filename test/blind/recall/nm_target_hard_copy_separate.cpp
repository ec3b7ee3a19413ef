// CASE: the target critic is a separately constructed module; the periodic
//       hard update copies the online weights into it under NoGradGuard
// SOURCE: https://github.com/quantumiracle/Popular-RL-Algorithms/issues/2
//         (target networks synchronised by copying parameter values)
// KIND: near-miss
// WHY-OK: target and online own different tensors; copy_ writes only the
//         target, and online optimizer steps leave the target alone
#include <torch/torch.h>

#include <cstdio>

struct CriticImpl : torch::nn::Module {
  CriticImpl() { fc = register_module("fc", torch::nn::Linear(3, 1)); }
  torch::Tensor forward(const torch::Tensor& x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Critic);

static void hard_update(Critic& target, const Critic& online) {
  torch::NoGradGuard no_grad;
  auto dst = target->parameters();
  auto src = online->parameters();
  for (size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
}

int main() {
  torch::manual_seed(19);
  Critic online;
  Critic target;
  hard_update(target, online);
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
  opt.step();

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
