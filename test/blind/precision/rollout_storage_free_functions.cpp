// CASE: an A2C/PPO rollout buffer kept as a plain struct of preallocated
//       tensors; free functions `insert(storage, ...)` write step slices
//       (`s.obs[s.step + 1].copy_(obs)`), `compute_returns` fills returns
//       back to front from returns[t + 1], and `after_update` copies the last
//       observation into slot 0 (`s.obs[0].copy_(s.obs[-1])`)
// SOURCE: the kind of code in Omegastick/pytorch-cpp-rl src/storage.cpp and
//         ikostrikov/pytorch-a2c-ppo-acktr-gail storage.py, written C-style
//         with a struct and free functions instead of methods
// KIND: near-miss
// WHY-OK: the struct owns its buffers and these functions exist to fill
//         them; obs[0] and obs[-1], returns[t] and returns[t + 1] are
//         different rows (num_steps >= 1 gives obs at least two)
#include <torch/torch.h>
#include <iostream>

struct RolloutStorage {
  torch::Tensor obs, rewards, masks, values, returns;
  int64_t num_steps, step = 0;
};

RolloutStorage make_storage(int64_t num_steps, int64_t num_envs, int64_t obs_dim) {
  TORCH_CHECK(num_steps >= 1, "need at least one step");
  return {torch::zeros({num_steps + 1, num_envs, obs_dim}), torch::zeros({num_steps, num_envs, 1}),
          torch::ones({num_steps + 1, num_envs, 1}), torch::zeros({num_steps + 1, num_envs, 1}),
          torch::zeros({num_steps + 1, num_envs, 1}), num_steps};
}

void insert(RolloutStorage& s, const torch::Tensor& obs, const torch::Tensor& reward,
            const torch::Tensor& mask, const torch::Tensor& value) {
  s.obs[s.step + 1].copy_(obs);
  s.rewards[s.step].copy_(reward);
  s.masks[s.step + 1].copy_(mask);
  s.values[s.step].copy_(value);
  s.step = (s.step + 1) % s.num_steps;
}

void compute_returns(RolloutStorage& s, const torch::Tensor& next_value, double gamma) {
  s.returns[-1] = next_value;
  for (int64_t t = s.num_steps - 1; t >= 0; --t)
    s.returns[t] = s.returns[t + 1] * gamma * s.masks[t + 1] + s.rewards[t];
}

void after_update(RolloutStorage& s) {
  s.obs[0].copy_(s.obs[-1]);
  s.masks[0].copy_(s.masks[-1]);
}

int main() {
  auto storage = make_storage(3, 2, 4);
  for (int t = 0; t < 3; ++t)
    insert(storage, torch::full({2, 4}, float(t + 1)), torch::ones({2, 1}),
           torch::ones({2, 1}), torch::zeros({2, 1}));
  compute_returns(storage, torch::zeros({2, 1}), 0.5);
  std::cout << "returns[0] = " << storage.returns[0][0].item<float>() << " (expected 1.75)\n";
  after_update(storage);
  std::cout << "obs[0] now holds the last observation: "
            << storage.obs[0][0][0].item<float>() << " (expected 3)\n";
  return 0;
}
