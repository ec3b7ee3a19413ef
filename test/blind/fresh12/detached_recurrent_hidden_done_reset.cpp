// CASE: a recurrent A2C policy keeps its GRUCell state in h_; when envs finish
//       an episode in the middle of an n-step rollout, on_done() zeroes their
//       rows with h_.detach().index_fill_(0, done, 0) ("no grad through the
//       reset"), but the rollout's graph saved h_ in the heads and in the
//       next GRUCell step, and backward runs at the end of the rollout
// SOURCE: the kind of code in libtorch recurrent-policy ports (A2C/PPO with
//         GRU memory, "reset hidden state on done" questions)
// KIND: bug
// HARM: backward throws because a saved hidden state was modified in place
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct RecurrentPolicyImpl : torch::nn::Module {
  RecurrentPolicyImpl(int64_t obs, int64_t hidden, int64_t actions) {
    cell = register_module("cell", torch::nn::GRUCell(obs, hidden));
    pi = register_module("pi", torch::nn::Linear(hidden, actions));
    v = register_module("v", torch::nn::Linear(hidden, 1));
    h_ = torch::zeros({0, hidden});
  }
  void begin(int64_t n_envs) { h_ = torch::zeros({n_envs, cell->options.hidden_size()}); }

  std::pair<torch::Tensor, torch::Tensor> act(const torch::Tensor& obs) {
    h_ = cell(obs, h_);
    return {torch::log_softmax(pi(h_), 1), v(h_)};
  }

  void on_done(const torch::Tensor& done_envs) {
    h_.detach().index_fill_(0, done_envs, 0.0);  // BUG(libtorch-detached-write)
  }

  torch::nn::GRUCell cell{nullptr};
  torch::nn::Linear pi{nullptr}, v{nullptr};
  torch::Tensor h_;
};
TORCH_MODULE(RecurrentPolicy);

int main() {
  torch::manual_seed(0);
  const int64_t n_envs = 4, n_steps = 5;
  RecurrentPolicy policy(6, 16, 3);
  policy->begin(n_envs);

  std::vector<torch::Tensor> log_probs, values;
  for (int64_t t = 0; t < n_steps; ++t) {
    auto obs = torch::randn({n_envs, 6});
    auto [logp, value] = policy->act(obs);
    auto a = logp.exp().multinomial(1);
    log_probs.push_back(logp.gather(1, a));
    values.push_back(value);
    if (t == 2) policy->on_done(torch::tensor({1}, torch::kLong));  // BUG(libtorch-detached-write)
  }
  auto returns = torch::ones({n_steps, n_envs, 1});
  auto V = torch::stack(values), LP = torch::stack(log_probs);
  auto adv = (returns - V).detach();
  auto loss = -(LP * adv).mean() + (returns - V).pow(2).mean();
  try {
    loss.backward();
    std::cout << "rollout gradient computed\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: backward failed: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
