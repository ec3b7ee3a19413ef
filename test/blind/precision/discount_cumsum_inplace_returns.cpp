// CASE: an RL trainer's `discount_cumsum_` turns a reward sequence into
//       discounted returns in place, back to front (`rewards[t] += gamma *
//       rewards[t + 1]`), and returns the tensor it updated; the PPO update
//       passes a clone of the stored rewards, the REINFORCE path passes a
//       freshly stacked episode, and both use only the returned tensor
// SOURCE: the kind of code in libtorch RL ports (Omegastick/pytorch-cpp-rl
//         storage.cpp compute_returns, spinningup-style discount_cumsum)
// KIND: near-miss
// WHY-OK: in-place conversion is the helper's contract; the tensors handed
//         in are fresh (clone / stack) and the originals stay untouched
#include <torch/torch.h>
#include <iostream>
#include <vector>

// Rewards -> discounted returns, in place. Returns `rewards`.
torch::Tensor discount_cumsum_(torch::Tensor rewards, const torch::Tensor& not_done,
                               double gamma) {
  for (int64_t t = rewards.size(0) - 2; t >= 0; --t)
    rewards[t] += gamma * not_done[t] * rewards[t + 1];
  return rewards;
}

void normalize_(torch::Tensor adv) { adv.sub_(adv.mean()).div_(adv.std() + 1e-8); }

struct Batch {
  torch::Tensor rewards, dones, values;  // (T, num_envs)
};

torch::Tensor ppo_advantages(const Batch& batch, double gamma) {
  auto returns = discount_cumsum_(batch.rewards.clone(), 1 - batch.dones, gamma);
  auto adv = returns - batch.values;
  normalize_(adv);
  return adv;
}

torch::Tensor reinforce_weights(const std::vector<float>& episode_rewards, double gamma) {
  std::vector<torch::Tensor> steps;
  for (float r : episode_rewards) steps.push_back(torch::tensor(r));
  auto rewards = torch::stack(steps);
  return discount_cumsum_(rewards, torch::ones_like(rewards), gamma);
}

int main() {
  Batch b{torch::ones({4, 2}), torch::zeros({4, 2}), torch::zeros({4, 2})};
  b.dones[1][1] = 1;  // env 1's episode ends at step 1
  auto stored = b.rewards.clone();
  auto adv = ppo_advantages(b, 0.5);
  std::cout << "advantages:\n" << adv << "\n";
  std::cout << "stored rewards untouched: " << std::boolalpha << b.rewards.equal(stored) << "\n";
  auto w = reinforce_weights({0.f, 0.f, 1.f}, 0.9);
  std::cout << "reinforce returns: " << w << "\n";  // 0.81 0.9 1
  return 0;
}
