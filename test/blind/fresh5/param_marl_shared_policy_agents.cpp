// CASE: homogeneous agents of a multi-agent team are held as
//       std::vector<std::unique_ptr<Agent>>; each Agent keeps the one shared
//       policy (parameter sharing) plus its own id embedding, and
//       marl::joint_parameters() folds every agent's parameters() into one
//       list with std::accumulate, so the shared policy appears once per agent
// SOURCE: multi-agent RL (parameter-shared MAPPO/IPPO-style teams) for game AI
//         in libtorch; the Lua-era report of shared weights getting several
//         updates: https://github.com/torch/torch7/issues/716
// KIND: bug
// HARM: one AdamW step moves the shared policy by three learning rates
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <numeric>

namespace marl {

struct PolicyImpl : torch::nn::Module {
  PolicyImpl(int64_t obs, int64_t act) {
    fc1 = register_module("fc1", torch::nn::Linear(obs, 64));
    fc2 = register_module("fc2", torch::nn::Linear(64, act));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2->forward(torch::relu(fc1->forward(x))); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Policy);

class Agent {
 public:
  Agent(Policy shared, int64_t n_actions) : policy_(std::move(shared)), id_bias_(torch::zeros({n_actions}, torch::requires_grad())) {}
  torch::Tensor logits(const torch::Tensor& obs) { return policy_->forward(obs) + id_bias_; }
  std::vector<torch::Tensor> parameters() const {
    auto ps = policy_->parameters();
    ps.push_back(id_bias_);
    return ps;
  }

 private:
  Policy policy_;
  torch::Tensor id_bias_;
};

std::vector<torch::Tensor> joint_parameters(const std::vector<std::unique_ptr<Agent>>& team) {
  return std::accumulate(team.begin(), team.end(), std::vector<torch::Tensor>{},
                         [](std::vector<torch::Tensor> acc, const std::unique_ptr<Agent>& a) {
                           auto ps = a->parameters();
                           acc.insert(acc.end(), ps.begin(), ps.end());  // BUG(libtorch-shared-parameter-update)
                           return acc;
                         });
}

}  // namespace marl

int main() {
  torch::manual_seed(0);
  const int64_t obs_dim = 10, n_actions = 5;
  marl::Policy shared(obs_dim, n_actions);
  std::vector<std::unique_ptr<marl::Agent>> team;
  for (int i = 0; i < 3; ++i) team.push_back(std::make_unique<marl::Agent>(shared, n_actions));  // BUG(libtorch-shared-parameter-update)

  const double lr = 3e-4;
  torch::optim::AdamW opt(marl::joint_parameters(team), torch::optim::AdamWOptions(lr).weight_decay(0));  // BUG(libtorch-shared-parameter-update)

  auto w = shared->fc1->weight;
  auto before = w.detach().clone();
  opt.zero_grad();
  torch::Tensor loss = torch::zeros({});
  for (auto& agent : team) {
    auto obs = torch::randn({16, obs_dim});
    auto act = torch::randint(0, n_actions, {16}, torch::kLong);
    auto adv = torch::randn({16});
    auto logp = torch::log_softmax(agent->logits(obs), 1).gather(1, act.unsqueeze(1)).squeeze(1);
    loss = loss - (logp * adv).mean();
  }
  loss.backward();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  float moved = (w.detach() - before).abs().max().item<float>();
  std::cout << "shared fc1.weight largest change " << moved << " with lr " << lr << "\n";
  if (moved > 1.5 * lr)
    std::cout << "HARM: one AdamW step moved the shared policy by " << moved / lr << " learning rates\n";
  return 0;
}
