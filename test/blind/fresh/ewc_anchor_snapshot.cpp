// CASE: continual learning with an EWC / L2-SP style penalty: after task A,
//       the anchor weights are stored as (name, tensor) pairs taken from
//       named_parameters(), then task B is trained with a penalty pulling the
//       weights back to the anchor
// SOURCE: the kind of code in EWC / L2-SP implementations (the Python ones
//         store p.detach().clone(); a port that stores the parameter itself
//         keeps a handle, not the task-A values)
// KIND: bug
// HARM: the anchor moves with the weights, so the penalty is always 0 and
//       the weights drift freely from their task-A values
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

static void train(torch::nn::Sequential& model, torch::optim::SGD& opt,
                  const torch::Tensor& x, const torch::Tensor& y,
                  const std::vector<std::pair<std::string, torch::Tensor>>& anchor,
                  double lambda, int steps) {
  for (int s = 0; s < steps; ++s) {
    opt.zero_grad();
    auto loss = torch::mse_loss(model->forward(x), y);
    auto params = model->named_parameters();
    for (const auto& a : anchor) {
      loss = loss + lambda * (params[a.first] - a.second).pow(2).sum();
    }
    loss.backward();
    opt.step();  // BUG(libtorch-inplace-on-view)
  }
}

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential model(torch::nn::Linear(4, 16), torch::nn::Tanh(),
                              torch::nn::Linear(16, 1));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.05));
  auto x = torch::randn({128, 4});
  auto y_a = x.sum(1, true);
  auto y_b = -x.sum(1, true);

  train(model, opt, x, y_a, {}, 0.0, 100);

  std::vector<std::pair<std::string, torch::Tensor>> anchor;
  std::vector<torch::Tensor> task_a_values;  // kept by this demo only
  for (const auto& kv : model->named_parameters()) {
    anchor.emplace_back(kv.key(), kv.value());  // BUG(libtorch-inplace-on-view)
    task_a_values.push_back(kv.value().detach().clone());
  }

  train(model, opt, x, y_b, anchor, 10.0, 100);  // BUG(libtorch-inplace-on-view)

  double penalty = 0.0, drift = 0.0;
  auto params = model->named_parameters();
  for (size_t i = 0; i < anchor.size(); ++i) {
    penalty += (params[anchor[i].first] - anchor[i].second).pow(2).sum().item<double>();  // BUG(libtorch-inplace-on-view)
    drift += (params[anchor[i].first] - task_a_values[i]).pow(2).sum().item<double>();
  }
  if (penalty < 1e-12 && drift > 1e-6) {
    std::cout << "HARM: the consolidation penalty is " << penalty
              << " although the weights moved " << drift
              << " (squared) from their task-A values\n";
  } else {
    std::cout << "penalty " << penalty << ", drift " << drift << "\n";
  }
  return 0;
}
