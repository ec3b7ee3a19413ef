// CASE: a recurrent policy exposes its hidden state through a getter that
//       returns a reference; during the rollout the runner resets the rows of
//       finished episodes in place (masked_fill_) on that tensor, which is the
//       output of tanh and the input of the next step's linear layers, both
//       saved for the rollout's backward
// SOURCE: recurrent A2C/PPO runners in libtorch that mask hidden states at
//         episode boundaries; masking discussed in
//         https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/193
//         and https://github.com/hill-a/stable-baselines/issues/1022
// KIND: bug
// HARM: the rollout's backward throws (modified by an inplace operation)
#include <torch/torch.h>

#include <iostream>

class RecurrentPolicy : public torch::nn::Module {
 public:
  RecurrentPolicy(int64_t obs, int64_t hid, int64_t act) {
    in_ = register_module("in", torch::nn::Linear(obs, hid));
    rec_ = register_module("rec", torch::nn::Linear(hid, hid));
    pi_ = register_module("pi", torch::nn::Linear(hid, act));
    h_ = torch::zeros({4, hid});
  }
  torch::Tensor& hidden() { return h_; }
  torch::Tensor step(const torch::Tensor& obs) {
    h_ = torch::tanh(in_->forward(obs) + rec_->forward(h_));
    return pi_->forward(h_);
  }

 private:
  torch::nn::Linear in_{nullptr}, rec_{nullptr}, pi_{nullptr};
  torch::Tensor h_;
};

int main() {
  torch::manual_seed(0);
  RecurrentPolicy policy(6, 32, 3);
  torch::optim::RMSprop opt(policy.parameters(), torch::optim::RMSpropOptions(7e-4));

  const int T = 5;
  auto obs = torch::randn({T, 4, 6});
  auto actions = torch::randint(0, 3, {T, 4}, torch::kLong);
  auto adv = torch::randn({T, 4});
  auto done = torch::zeros({T, 4}, torch::kBool);
  done.index_put_({2, 1}, true);

  std::vector<torch::Tensor> logps;
  for (int t = 0; t < T; ++t) {
    auto logits = policy.step(obs[t]);
    logps.push_back(torch::log_softmax(logits, 1).gather(1, actions[t].unsqueeze(1)).squeeze(1));
    policy.hidden().masked_fill_(done[t].unsqueeze(1), 0.0);  // BUG(libtorch-detached-write)
  }
  auto loss = -(torch::stack(logps) * adv).mean();
  opt.zero_grad();
  try {
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::cout << "update ok, loss " << loss.item<float>() << "\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: rollout backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
