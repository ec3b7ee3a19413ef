// CASE: a GNN stack is a std::vector of std::variant<GraphConv, Readout>
//       layers; the propagation layer is shared across hops, so the builder
//       pushes the same holder once per hop, and the trainer collects the
//       parameters with std::visit and clips them with clip_grad_norm_
// SOURCE: the kind of code from weight-tied message passing (one
//         propagation layer applied k times); NVIDIA/Megatron-LM#7227 and
//         #7228 (a shared weight counted twice in the gradient norm)
// KIND: bug
// HARM: the gradient norm is over-reported and the shared layer's
//       gradient is scaled by the clip coefficient three times
#include <torch/torch.h>

#include <iostream>
#include <variant>
#include <vector>

struct GraphConvImpl : torch::nn::Module {
  explicit GraphConvImpl(int64_t dim) : lin(register_module("lin", torch::nn::Linear(dim, dim))) {}
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& adj) {
    return torch::relu(adj.mm(lin(x))) + x;
  }
  torch::nn::Linear lin;
};
TORCH_MODULE(GraphConv);

struct ReadoutImpl : torch::nn::Module {
  ReadoutImpl(int64_t dim, int64_t classes) : lin(register_module("lin", torch::nn::Linear(dim, classes))) {}
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor&) { return lin(x); }
  torch::nn::Linear lin;
};
TORCH_MODULE(Readout);

using Layer = std::variant<GraphConv, Readout>;

std::vector<Layer> build_stack(int hops, int64_t dim, int64_t classes) {
  GraphConv propagate(dim);  // one set of weights for every hop
  std::vector<Layer> stack;
  for (int k = 0; k < hops; ++k) stack.emplace_back(propagate);
  stack.emplace_back(Readout(dim, classes));
  return stack;
}

std::vector<torch::Tensor> trainable(const std::vector<Layer>& stack) {
  std::vector<torch::Tensor> out;
  for (const auto& layer : stack) {
    std::visit([&](const auto& m) {
      for (auto& p : m->parameters()) out.push_back(p);         // BUG(libtorch-shared-parameter-update)
    }, layer);
  }
  return out;
}

torch::Tensor run(std::vector<Layer>& stack, torch::Tensor x, const torch::Tensor& adj) {
  for (auto& layer : stack) x = std::visit([&](auto& m) { return m->forward(x, adj); }, layer);
  return x;
}

int main() {
  torch::manual_seed(17);
  const int64_t nodes = 40, dim = 12, classes = 3;
  auto stack = build_stack(3, dim, classes);
  auto params = trainable(stack);                                 // BUG(libtorch-shared-parameter-update)
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true));  // BUG(libtorch-shared-parameter-update)

  auto a = (torch::rand({nodes, nodes}) < 0.1).to(torch::kFloat);
  auto adj = (a + a.t() + torch::eye(nodes)).clamp_max(1);
  adj = adj / adj.sum(1, true);
  auto x = torch::randn({nodes, dim});
  auto y = torch::randint(classes, {nodes}, torch::kLong);

  auto loss = torch::nn::functional::cross_entropy(run(stack, x, adj), y);
  opt.zero_grad();
  loss.backward();

  auto propagate = std::get<GraphConv>(stack.front());
  auto readout = std::get<Readout>(stack.back());
  auto shared_w = propagate->lin->weight;
  double true_sq = 0;
  for (auto& p : propagate->parameters()) true_sq += p.grad().pow(2).sum().item<double>();
  for (auto& p : readout->parameters()) true_sq += p.grad().pow(2).sum().item<double>();
  double true_norm = std::sqrt(true_sq);
  auto shared_grad_before = shared_w.grad().norm().item<double>();

  const double max_norm = 0.05;
  double reported = torch::nn::utils::clip_grad_norm_(params, max_norm);  // BUG(libtorch-shared-parameter-update)
  auto shared_grad_after = shared_w.grad().norm().item<double>();
  double want_after = shared_grad_before * std::min(1.0, max_norm / (true_norm + 1e-6));
  opt.step();                                                     // BUG(libtorch-shared-parameter-update)

  std::cout << "listed " << params.size() << " tensors; norm reported " << reported << ", true " << true_norm << "\n";
  std::cout << "shared grad after clipping " << shared_grad_after << ", expected " << want_after << "\n";
  if (std::abs(reported - true_norm) > 1e-4 * true_norm || std::abs(shared_grad_after - want_after) > 1e-4 * want_after)
    std::cout << "HARM: clip_grad_norm_ reported " << reported << " for a true norm of " << true_norm
              << " and left the shared layer's gradient at " << shared_grad_after << " instead of "
              << want_after << "\n";
  return 0;
}
