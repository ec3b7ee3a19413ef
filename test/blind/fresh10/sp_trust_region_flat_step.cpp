// CASE: a Gaussian policy wraps its feature layer into the mean head's
//       Sequential and also registers it as "features"; a TRPO-style update
//       flattens the gradients of parameters() with torch::cat, scales the step
//       to the trust radius and writes it back with vector_to_parameters, so
//       the feature layer's gradient enters the norm twice
// SOURCE: the kind of natural-gradient / TRPO step found in C++ RL code
//         (flat_grad + parameters_to_vector + vector_to_parameters), with
//         Fisher = identity
// KIND: bug
// HARM: the update moves the policy by a radius short of the trust radius
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <unordered_set>
#include <vector>

struct GaussianPolicyImpl : torch::nn::Module {
  GaussianPolicyImpl() {
    features = register_module("features", torch::nn::Linear(4, 32));
    mean_head = register_module("mean_head", torch::nn::Sequential(features, torch::nn::Tanh(), torch::nn::Linear(32, 2)));  // BUG(libtorch-shared-parameter-update)
    log_std = register_parameter("log_std", torch::zeros({2}));
  }
  torch::Tensor log_prob(const torch::Tensor& obs, const torch::Tensor& act) {
    auto mu = mean_head->forward(obs);
    auto z = (act - mu) / log_std.exp();
    return (-0.5 * z.pow(2) - log_std).sum(-1);
  }
  torch::nn::Linear features{nullptr};
  torch::nn::Sequential mean_head{nullptr};
  torch::Tensor log_std;
};
TORCH_MODULE(GaussianPolicy);

namespace rl {

torch::Tensor flat_grad(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> parts;
  for (const auto& p : params) parts.push_back(p.grad().reshape({-1}));
  return torch::cat(parts);
}

// steepest ascent step of length sqrt(2 * max_kl) under an identity metric
void trust_region_step(const std::vector<torch::Tensor>& params, double max_kl) {
  torch::NoGradGuard no_grad;
  auto g = flat_grad(params);
  auto step = g * std::sqrt(2.0 * max_kl / g.dot(g).item<double>());  // BUG(libtorch-shared-parameter-update)
  auto theta = torch::nn::utils::parameters_to_vector(params) + step;
  torch::nn::utils::vector_to_parameters(theta, params);  // BUG(libtorch-shared-parameter-update)
}

}  // namespace rl

int main() {
  torch::manual_seed(2);
  GaussianPolicy pi;
  auto obs = torch::randn({64, 4});
  auto act = torch::randn({64, 2});
  auto adv = torch::randn({64});

  std::vector<torch::Tensor> params = pi->parameters();  // BUG(libtorch-shared-parameter-update)
  std::vector<torch::Tensor> unique, before;
  std::unordered_set<void*> seen;
  for (const auto& p : params)
    if (seen.insert(p.unsafeGetTensorImpl()).second) { unique.push_back(p); before.push_back(p.detach().clone()); }

  auto surrogate = (pi->log_prob(obs, act) * adv).mean();
  surrogate.backward();
  const double max_kl = 0.01;
  rl::trust_region_step(params, max_kl);

  double moved2 = 0;
  for (size_t i = 0; i < unique.size(); ++i) moved2 += (unique[i].detach() - before[i]).pow(2).sum().item<double>();
  const double radius = std::sqrt(2.0 * max_kl);
  std::printf("%zu listed tensors, %zu distinct; step radius %.4f, trust radius %.4f\n", params.size(),
              unique.size(), std::sqrt(moved2), radius);
  if (std::abs(std::sqrt(moved2) - radius) > 1e-3 * radius)
    std::printf("HARM: the policy moved %.4f, not the trust radius %.4f\n", std::sqrt(moved2), radius);
  return 0;
}
