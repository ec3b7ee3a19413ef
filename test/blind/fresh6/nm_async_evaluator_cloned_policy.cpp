// CASE: an RL trainer hands a policy to an asynchronous evaluator every few
//       updates and keeps stepping the optimizer; each evaluation runs on
//       its own thread after an environment reset
// SOURCE: the kind of code from actor-learner RL setups that evaluate
//         checkpoints in the background (huggingface/transformers#38829)
// KIND: near-miss
// WHY-OK: the evaluator is given a deep copy made by Module::clone() at
//         submission time, so later optimizer steps do not reach it
#include <torch/torch.h>

#include <chrono>
#include <future>
#include <iostream>
#include <map>
#include <vector>

struct QNetImpl : torch::nn::Cloneable<QNetImpl> {
  QNetImpl(int64_t obs, int64_t act) : obs_(obs), act_(act) { reset(); }
  void reset() override {
    fc1 = register_module("fc1", torch::nn::Linear(obs_, 48));
    fc2 = register_module("fc2", torch::nn::Linear(48, act_));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::elu(fc1(x))); }
  int64_t obs_, act_;
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(QNet);

double greedy_value(QNet net, const torch::Tensor& states, const torch::Tensor& payoff) {
  torch::NoGradGuard no_grad;
  auto a = net->forward(states).argmax(1, /*keepdim=*/true);
  return payoff.gather(1, a).mean().item<double>();
}

class Evaluator {
 public:
  Evaluator(torch::Tensor states, torch::Tensor payoff) : states_(std::move(states)), payoff_(std::move(payoff)) {}
  void submit(int update, const QNet& live) {
    QNet frozen(std::dynamic_pointer_cast<QNetImpl>(live->clone()));
    pending_.emplace(update, std::async(std::launch::async, [this, frozen] {
      std::this_thread::sleep_for(std::chrono::milliseconds(150));  // env reset
      return greedy_value(frozen, states_, payoff_);
    }));
  }
  std::map<int, double> collect() {
    std::map<int, double> out;
    for (auto& [u, f] : pending_) out[u] = f.get();
    pending_.clear();
    return out;
  }

 private:
  torch::Tensor states_, payoff_;
  std::map<int, std::future<double>> pending_;
};

int main() {
  torch::manual_seed(71);
  const int64_t obs = 6, act = 4;
  QNet q(obs, act);
  torch::optim::SGD opt(q->parameters(), torch::optim::SGDOptions(0.5).momentum(0.9));
  auto states = torch::randn({256, obs});
  auto payoff = torch::randn({256, act});
  Evaluator evaluator(states, payoff);
  std::map<int, double> at_submit;

  for (int update = 0; update < 40; ++update) {
    if (update % 10 == 0) {
      at_submit[update] = greedy_value(q, states, payoff);
      evaluator.submit(update, q);
    }
    auto s = torch::randn({64, obs});
    auto target = s.narrow(1, 0, act) * 2;
    auto loss = torch::mse_loss(q->forward(s), target);
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  for (auto& [u, v] : evaluator.collect())
    std::cout << "update " << u << ": evaluated " << v << ", at submit " << at_submit[u] << "\n";
  return 0;
}
