// CASE: a recurrent policy keeps the last hidden state of a rollout as
//       state[0] to bootstrap the value of the truncated episode, then a
//       helper resets the hidden state in place for the next episode
// SOURCE: the kind of code in A2C/PPO rollouts with GRU policies
//         (recurrent_hidden_states kept between rollout steps, masked/reset
//         at episode boundaries)
// KIND: bug
// HARM: the bootstrap value is computed from an all-zero hidden state
#include <torch/torch.h>
#include <iostream>

torch::Tensor gru_like_step(const torch::Tensor& h, const torch::Tensor& x,
                            const torch::Tensor& w) {
  return torch::tanh(torch::matmul(h, w) + x);
}

// Start of a new episode: clear the recurrent state in place.
void reset_hidden(torch::Tensor& state) {
  state.zero_();                      // BUG(libtorch-inplace-on-view)
}

int main() {
  torch::manual_seed(0);
  const int64_t batch = 2, hidden = 4;
  auto state = torch::zeros({1, batch, hidden});   // layers x batch x hidden
  auto w = torch::randn({hidden, hidden}) * 0.5;
  auto value_head = torch::ones({hidden, 1});
  for (int t = 0; t < 5; ++t) {
    auto x = torch::full({batch, hidden}, 0.3 * (t + 1));
    state[0].copy_(gru_like_step(state[0], x, w));
  }
  auto last_h = state[0];             // BUG(libtorch-inplace-on-view)
  reset_hidden(state);                // BUG(libtorch-inplace-on-view)
  auto bootstrap = torch::matmul(last_h, value_head);   // BUG(libtorch-inplace-on-view)
  float norm = last_h.abs().sum().item<float>();
  std::cout << "bootstrap values: " << bootstrap.view({-1}) << "\n";
  if (norm == 0.0f)
    std::cout << "HARM: the bootstrap value uses a zeroed hidden state (|h| = 0, value "
              << bootstrap.sum().item<float>() << ")\n";
  return 0;
}
