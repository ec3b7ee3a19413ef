// CASE: a PPO update takes the rollout-time log-probabilities as
//       old = storage.log_probs.t() (a [T, N] -> [N, T] view for per-env
//       minibatches), and after every epoch's step refreshes
//       storage.log_probs with copy_() so the approx-KL early stop can compare
//       consecutive epochs; from the second epoch on, `old` shows the
//       current policy's log-probs instead of the rollout's
// SOURCE: the kind of code in libtorch PPO ports (RolloutStorage with
//         preallocated buffers reused across epochs)
// KIND: bug
// HARM: the second epoch's probability ratio is exactly 1: it is anchored to
//       the policy after epoch one's step, not to the one that collected the
//       rollout
#include <torch/torch.h>

#include <iostream>

namespace ppo {

struct RolloutStorage {
  RolloutStorage(int64_t T, int64_t N, int64_t obs_dim)
      : obs(torch::randn({T, N, obs_dim})),
        actions(torch::randint(0, 3, {T, N, 1})),
        advantages(torch::randn({T, N})),
        log_probs(torch::zeros({T, N})) {}
  torch::Tensor obs, actions, advantages, log_probs;
};

torch::Tensor evaluate(torch::nn::Linear& pi, const RolloutStorage& s) {
  return torch::log_softmax(pi(s.obs), -1).gather(-1, s.actions).squeeze(-1);  // [T, N]
}

}  // namespace ppo

int main() {
  torch::manual_seed(0);
  const int64_t T = 8, N = 4;
  torch::nn::Linear pi(5, 3);
  torch::optim::Adam opt(pi->parameters(), torch::optim::AdamOptions(0.05));
  ppo::RolloutStorage storage(T, N, 5);
  {
    torch::NoGradGuard no_grad;
    storage.log_probs.copy_(ppo::evaluate(pi, storage));  // collected by the behaviour policy
  }
  auto rollout_lp = storage.log_probs.clone();  // reference, kept by value

  auto old_log_probs = storage.log_probs.t();  // BUG(libtorch-inplace-on-view)
  auto adv = storage.advantages.t();
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto new_lp = ppo::evaluate(pi, storage).t();
    auto ratio = (new_lp - old_log_probs).exp();  // BUG(libtorch-inplace-on-view)
    auto ratio_ref = (new_lp - rollout_lp.t()).exp();
    if (!torch::allclose(ratio, ratio_ref)) {
      std::cout << "HARM: epoch " << epoch << " mean ratio " << ratio.mean().item<float>()
                << ", against the rollout policy " << ratio_ref.mean().item<float>() << "\n";
      break;
    }
    auto surr = torch::min(ratio * adv, ratio.clamp(0.8, 1.2) * adv);
    opt.zero_grad();
    (-surr.mean()).backward();
    opt.step();
    torch::NoGradGuard no_grad;
    auto lp_after = ppo::evaluate(pi, storage);
    auto approx_kl = (storage.log_probs - lp_after).mean().item<float>();
    std::cout << "epoch " << epoch << " approx KL " << approx_kl << "\n";
    storage.log_probs.copy_(lp_after);  // BUG(libtorch-inplace-on-view)
  }
  return 0;
}
