// CASE: a goal-conditioned policy shares its observation encoder with the goal
//       branch (share_encoder option) and registers it under both names; an
//       OpenAI-style evolution-strategies step perturbs and updates every entry
//       of parameters() with its own noise, so the shared encoder gets two
//       independent perturbations and two updates per generation
// SOURCE: the kind of gradient-free ES trainer (antithetic-free OpenAI ES)
//         written against the C++ frontend for control policies
// KIND: bug
// HARM: the shared encoder weight moves by the sum of two ES updates instead of
//       the one its slot computed
#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct PolicyOptions { int64_t obs = 6, hidden = 16, act = 2; bool share_encoder = true; };

struct GoalPolicyImpl : torch::nn::Module {
  explicit GoalPolicyImpl(const PolicyOptions& o) {
    obs_enc = register_module("obs_enc", torch::nn::Linear(o.obs, o.hidden));
    goal_enc = o.share_encoder ? obs_enc : torch::nn::Linear(o.obs, o.hidden);
    register_module("goal_enc", goal_enc);  // BUG(libtorch-shared-parameter-update)
    head = register_module("head", torch::nn::Linear(2 * o.hidden, o.act));
  }
  torch::Tensor forward(const torch::Tensor& obs, const torch::Tensor& goal) {
    auto h = torch::cat({torch::tanh(obs_enc->forward(obs)), torch::tanh(goal_enc->forward(goal))}, -1);
    return torch::tanh(head->forward(h));
  }
  torch::nn::Linear obs_enc{nullptr}, goal_enc{nullptr}, head{nullptr};
};
TORCH_MODULE(GoalPolicy);

namespace es {

// returns the update applied to each listed tensor, for logging
template <class Fitness>
std::vector<torch::Tensor> generation(const std::vector<torch::Tensor>& params, Fitness&& fitness,
                                      int population, double sigma, double lr) {
  torch::NoGradGuard no_grad;
  std::vector<std::vector<torch::Tensor>> noise(population);
  auto scores = torch::empty({population});
  for (int i = 0; i < population; ++i) {
    for (const auto& p : params) noise[i].push_back(torch::randn_like(p));
    for (size_t k = 0; k < params.size(); ++k) params[k].add_(noise[i][k], sigma);  // BUG(libtorch-shared-parameter-update)
    scores[i] = fitness();
    for (size_t k = 0; k < params.size(); ++k) params[k].sub_(noise[i][k], sigma);  // BUG(libtorch-shared-parameter-update)
  }
  scores = (scores - scores.mean()) / (scores.std() + 1e-8);
  std::vector<torch::Tensor> applied;
  for (size_t k = 0; k < params.size(); ++k) {
    auto step = torch::zeros_like(params[k]);
    for (int i = 0; i < population; ++i) step.add_(noise[i][k], scores[i].item<double>());
    step.mul_(lr / (population * sigma));
    params[k].add_(step);  // BUG(libtorch-shared-parameter-update)
    applied.push_back(step);
  }
  return applied;
}

}  // namespace es

int main() {
  torch::manual_seed(4);
  GoalPolicy pi(PolicyOptions{});
  auto obs = torch::randn({32, 6}), goal = torch::randn({32, 6}), target = torch::randn({32, 2}).tanh();
  auto fitness = [&] { return -(pi->forward(obs, goal) - target).pow(2).mean().item<double>(); };

  auto params = pi->parameters();  // BUG(libtorch-shared-parameter-update)
  const auto before = pi->obs_enc->weight.detach().clone();
  const double f0 = fitness();
  auto applied = es::generation(params, fitness, /*population=*/24, /*sigma=*/0.05, /*lr=*/0.02);

  // obs_enc.weight is the first listed tensor
  const auto moved = pi->obs_enc->weight.detach() - before;
  const double off = (moved - applied[0]).abs().max().item<double>();
  std::printf("fitness %.4f -> %.4f; encoder step %.5f, its slot's update %.5f\n", f0, fitness(),
              moved.norm().item<double>(), applied[0].norm().item<double>());
  if (off > 1e-6)
    std::printf("HARM: the shared encoder moved %.5f away from the ES update of its slot\n", off);
  return 0;
}
