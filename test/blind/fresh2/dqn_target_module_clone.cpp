// CASE: a DQN agent makes its target network from the online network with
//       Module::clone() (a Cloneable QNetImpl), then trains the online
//       network and Polyak-averages the target towards it
// SOURCE: https://github.com/pytorch/pytorch/pull/9151
// KIND: near-miss
// WHY-OK: clone() deep-copies the parameters into a new QNetImpl, so the
//         target and online networks hold different tensors and the soft
//         update reads one list and writes the other
#include <torch/torch.h>

#include <iostream>

struct QNetImpl : torch::nn::Cloneable<QNetImpl> {
  QNetImpl(int64_t obs, int64_t actions) : obs_(obs), actions_(actions) {
    reset();
  }

  void reset() override {
    fc1 = register_module("fc1", torch::nn::Linear(obs_, 32));
    fc2 = register_module("fc2", torch::nn::Linear(32, actions_));
  }

  torch::Tensor forward(const torch::Tensor& x) {
    return fc2(torch::relu(fc1(x)));
  }

  int64_t obs_;
  int64_t actions_;
  torch::nn::Linear fc1{nullptr};
  torch::nn::Linear fc2{nullptr};
};
TORCH_MODULE(QNet);

class Agent {
 public:
  Agent(int64_t obs, int64_t actions)
      : online_(obs, actions),
        opt_(online_->parameters(), torch::optim::SGDOptions(0.05)) {
    target_ = QNet(std::dynamic_pointer_cast<QNetImpl>(online_->clone()));
    target_->eval();
  }

  void learn(const torch::Tensor& s, const torch::Tensor& a,
             const torch::Tensor& r, const torch::Tensor& s2) {
    torch::Tensor y;
    {
      torch::NoGradGuard no_grad;
      y = r + 0.99 * std::get<0>(target_->forward(s2).max(1));
    }
    auto q = online_->forward(s).gather(1, a.unsqueeze(1)).squeeze(1);
    auto loss = torch::smooth_l1_loss(q, y);
    opt_.zero_grad();
    loss.backward();
    opt_.step();
  }

  void soft_update(double tau) {
    torch::NoGradGuard no_grad;
    auto target_params = target_->parameters();
    auto online_params = online_->parameters();
    for (size_t i = 0; i < target_params.size(); ++i) {
      target_params[i].mul_(1.0 - tau).add_(online_params[i], tau);
    }
  }

  QNet& target() { return target_; }
  QNet& online() { return online_; }

 private:
  QNet online_;
  QNet target_{nullptr};
  torch::optim::SGD opt_;
};

int main() {
  torch::manual_seed(0);
  Agent agent(4, 2);
  auto target_before = agent.target()->fc1->weight.detach().clone();

  auto s = torch::randn({8, 4});
  auto a = torch::randint(0, 2, {8}, torch::kLong);
  auto r = torch::randn({8});
  auto s2 = torch::randn({8, 4});
  agent.learn(s, a, r, s2);

  auto drift = (agent.target()->fc1->weight.detach() - target_before).abs().max().item<double>();
  std::cout << "target fc1 drift after an online step, before any sync: " << drift << "\n";
  if (drift > 0) {
    std::cout << "HARM: the optimizer step on the online network moved the target network\n";
  }
  auto online_before = agent.online()->fc1->weight.detach().clone();
  agent.soft_update(0.01);
  auto online_drift = (agent.online()->fc1->weight.detach() - online_before).abs().max().item<double>();
  if (online_drift > 0) {
    std::cout << "HARM: the soft update changed the online network\n";
  }
  return 0;
}
