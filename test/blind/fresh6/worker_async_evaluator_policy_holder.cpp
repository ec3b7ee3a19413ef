// CASE: an RL trainer submits its policy module holder to an asynchronous
//       evaluator every few updates and keeps stepping the optimizer; each
//       evaluation job runs on its own thread after an environment reset
// SOURCE: the kind of code from actor-learner RL setups that evaluate
//         checkpoints "in the background" (huggingface/transformers#38829
//         asks for the same asynchronous evaluation; here the model is not
//         snapshotted); https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: bug
// HARM: the return reported for an update is the return of a later policy
#include <torch/torch.h>

#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

struct PolicyImpl : torch::nn::Module {
  PolicyImpl(int64_t obs, int64_t act)
      : fc1(register_module("fc1", torch::nn::Linear(obs, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, act))) {}
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::tanh(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Policy);

// Deterministic "rollout": greedy actions on a fixed batch of start states,
// scored against a fixed reward table.
double greedy_return(Policy policy, const torch::Tensor& states, const torch::Tensor& reward) {
  torch::NoGradGuard no_grad;
  auto actions = policy->forward(states).argmax(1);
  return reward.gather(1, actions.unsqueeze(1)).sum().item<double>();
}

class AsyncEvaluator {
 public:
  AsyncEvaluator(torch::Tensor states, torch::Tensor reward)
      : states_(std::move(states)), reward_(std::move(reward)) {}
  ~AsyncEvaluator() { wait(); }

  void submit(int update, Policy policy) {
    jobs_.emplace_back([this, update, policy] {               // BUG(libtorch-worker-missing-clone)
      std::this_thread::sleep_for(std::chrono::milliseconds(150));  // env reset / warm-up
      double r = greedy_return(policy, states_, reward_);
      std::lock_guard<std::mutex> lock(mutex_);
      returns_[update] = r;
    });
  }
  void wait() {
    for (auto& j : jobs_) if (j.joinable()) j.join();
  }
  std::map<int, double> returns() {
    std::lock_guard<std::mutex> lock(mutex_);
    return returns_;
  }

 private:
  torch::Tensor states_, reward_;
  std::vector<std::thread> jobs_;
  std::mutex mutex_;
  std::map<int, double> returns_;
};

int main() {
  torch::manual_seed(8);
  const int64_t obs = 6, act = 4, batch = 64;
  Policy policy(obs, act);
  torch::optim::SGD opt(policy->parameters(), torch::optim::SGDOptions(0.5).momentum(0.9));

  auto eval_states = torch::randn({256, obs});
  auto reward = torch::randn({256, act});
  AsyncEvaluator evaluator(eval_states, reward);
  std::map<int, double> at_submit;

  for (int update = 0; update < 40; ++update) {
    if (update % 10 == 0) {
      at_submit[update] = greedy_return(policy, eval_states, reward);
      evaluator.submit(update, policy);                           // BUG(libtorch-worker-missing-clone)
    }
    // A policy-gradient-like update towards the rewarding actions.
    auto s = torch::randn({batch, obs});
    auto target = (s.narrow(1, 0, act) * 3).softmax(1);
    auto loss = -(target * torch::log_softmax(policy->forward(s), 1)).sum(1).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();                                                   // BUG(libtorch-worker-missing-clone)
  }
  evaluator.wait();

  auto got = evaluator.returns();
  int wrong = -1;
  for (auto& [u, r] : got) {
    std::cout << "update " << u << ": evaluated " << r << ", at submit " << at_submit[u] << "\n";
    if (wrong < 0 && std::abs(r - at_submit[u]) > 1e-9) wrong = u;
  }
  if (wrong >= 0)
    std::cout << "HARM: update " << wrong << " was evaluated at " << got[wrong]
              << " but the policy submitted then scores " << at_submit[wrong] << "\n";
  return 0;
}
