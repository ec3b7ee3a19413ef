// CASE: an agent hierarchy exposes its parameters through a virtual
//       trainable(); the actor-critic override starts from the base list (the
//       shared encoder) and appends the actor module's parameters, but the
//       actor registers that same encoder as its "torso", and the list goes to
//       an optimizer built by a factory function from a config string
// SOURCE: A2C/PPO agents for game AI in libtorch with an Agent base class and
//         pluggable optimizers; cf. https://github.com/pytorch/pytorch/pull/18497
//         (validator for parameters shared in an optimizer)
// KIND: bug
// HARM: the encoder weight moves two SGD steps per update
#include <torch/torch.h>

#include <iostream>
#include <memory>

struct ActorImpl : torch::nn::Module {
  ActorImpl(torch::nn::Sequential shared_torso, int64_t n_actions) {
    torso = register_module("torso", std::move(shared_torso));  // BUG(libtorch-shared-parameter-update)
    pi = register_module("pi", torch::nn::Linear(64, n_actions));
  }
  torch::Tensor forward(const torch::Tensor& obs) { return pi->forward(torso->forward(obs)); }
  torch::nn::Sequential torso{nullptr};
  torch::nn::Linear pi{nullptr};
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
  explicit ActorCriticAgent(int64_t n_actions) : actor_(encoder_, n_actions), critic_(64, 1) {}  // BUG(libtorch-shared-parameter-update)
  std::vector<torch::Tensor> trainable() override {
    auto params = AgentBase::trainable();
    for (auto& p : actor_->parameters()) params.push_back(p);  // BUG(libtorch-shared-parameter-update)
    for (auto& p : critic_->parameters()) params.push_back(p);
    return params;
  }
  torch::Tensor loss(const torch::Tensor& obs, const torch::Tensor& actions, const torch::Tensor& returns) {
    auto logp = torch::log_softmax(actor_->forward(obs), 1).gather(1, actions.unsqueeze(1)).squeeze(1);
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
  return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(lr));  // BUG(libtorch-shared-parameter-update)
}

int main() {
  torch::manual_seed(0);
  std::unique_ptr<AgentBase> agent = std::make_unique<ActorCriticAgent>(4);
  auto& ac = static_cast<ActorCriticAgent&>(*agent);
  const double lr = 0.05;
  auto opt = make_optimizer("sgd", agent->trainable(), lr);  // BUG(libtorch-shared-parameter-update)

  auto obs = torch::randn({32, 16});
  auto actions = torch::randint(0, 4, {32}, torch::kLong);
  auto returns = torch::randn({32});
  auto w = ac.encoder_weight();
  auto before = w.detach().clone();

  opt->zero_grad();
  ac.loss(obs, actions, returns).backward();
  auto expected = before - lr * w.grad();
  opt->step();  // BUG(libtorch-shared-parameter-update)

  float off = (w.detach() - expected).abs().max().item<float>();
  float ratio = ((w.detach() - before).norm() / (expected - before).norm()).item<float>();
  std::cout << "encoder step / expected step = " << ratio << "\n";
  if (off > 1e-6f) std::cout << "HARM: encoder weight moved " << ratio << "x the SGD step (off by " << off << ")\n";
  return 0;
}
