// CASE: an agent hierarchy exposes its parameters through a virtual
//       trainable(); the actor-critic override starts from the base list (the
//       shared encoder) and appends its actor and critic heads, which take
//       the encoder's features as input instead of registering the encoder;
//       the list goes to an optimizer built by a factory function
// SOURCE: A2C/PPO agents for game AI in libtorch with an Agent base class and
//         pluggable optimizers
// KIND: near-miss
// WHY-OK: the base list and the two heads' parameters are disjoint, so each
//         tensor is stepped once
#include <torch/torch.h>

#include <iostream>
#include <memory>

struct ActorImpl : torch::nn::Module {
  explicit ActorImpl(int64_t n_actions) {
    hidden = register_module("hidden", torch::nn::Linear(64, 64));
    pi = register_module("pi", torch::nn::Linear(64, n_actions));
  }
  torch::Tensor forward(const torch::Tensor& features) { return pi->forward(torch::relu(hidden->forward(features))); }
  torch::nn::Linear hidden{nullptr}, pi{nullptr};
};
TORCH_MODULE(Actor);

class AgentBase {
 public:
  virtual ~AgentBase() = default;
  virtual std::vector<torch::Tensor> trainable() { return encoder_->parameters(); }

 protected:
  torch::nn::Sequential encoder_{torch::nn::Linear(16, 64), torch::nn::Tanh()};
};

class ActorCriticAgent : public AgentBase {
 public:
  explicit ActorCriticAgent(int64_t n_actions) : actor_(n_actions), critic_(64, 1) {}
  std::vector<torch::Tensor> trainable() override {
    auto params = AgentBase::trainable();
    for (auto& p : actor_->parameters()) params.push_back(p);
    for (auto& p : critic_->parameters()) params.push_back(p);
    return params;
  }
  torch::Tensor loss(const torch::Tensor& obs, const torch::Tensor& actions, const torch::Tensor& returns) {
    auto logp = torch::log_softmax(actor_->forward(encoder_->forward(obs)), 1).gather(1, actions.unsqueeze(1)).squeeze(1);
    auto value = critic_->forward(encoder_->forward(obs)).squeeze(1);
    auto adv = (returns - value).detach();
    return -(logp * adv).mean() + 0.5 * (returns - value).pow(2).mean();
  }
  torch::Tensor encoder_weight() { return encoder_->named_parameters()["0.weight"]; }

 private:
  Actor actor_;
  torch::nn::Linear critic_;
};

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& kind, std::vector<torch::Tensor> params,
                                                        double lr) {
  if (kind == "rmsprop")
    return std::make_unique<torch::optim::RMSprop>(params, torch::optim::RMSpropOptions(lr).alpha(0.99).eps(1e-5));
  if (kind == "adam") return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(lr));
  return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(lr));
}

int main() {
  torch::manual_seed(0);
  std::unique_ptr<AgentBase> agent = std::make_unique<ActorCriticAgent>(4);
  auto& ac = static_cast<ActorCriticAgent&>(*agent);
  const double lr = 0.05;
  auto opt = make_optimizer("sgd", agent->trainable(), lr);

  auto obs = torch::randn({32, 16});
  auto actions = torch::randint(0, 4, {32}, torch::kLong);
  auto returns = torch::randn({32});
  auto w = ac.encoder_weight();
  auto before = w.detach().clone();

  opt->zero_grad();
  ac.loss(obs, actions, returns).backward();
  auto expected = before - lr * w.grad();
  opt->step();

  float off = (w.detach() - expected).abs().max().item<float>();
  float ratio = ((w.detach() - before).norm() / (expected - before).norm()).item<float>();
  std::cout << "encoder step / expected step = " << ratio << "\n";
  if (off > 1e-6f) std::cout << "MISMATCH: encoder weight moved " << ratio << "x the SGD step (off by " << off << ")\n";
  return 0;
}
