// CASE: a discretised neural ODE keeps one gain per Euler step in a
//       ParameterList, each appended as its own clone of a common initial
//       value; torch::optim::SGD steps model->parameters()
// SOURCE: the kind of code in neural-ODE ports to libtorch (ParameterList of
//         per-step sizes initialised to 1/K)
// KIND: near-miss
// WHY-OK: every append gets a fresh tensor, so the list holds K distinct
//         parameters and each takes exactly one SGD step
#include <torch/torch.h>
#include <iostream>

namespace node {

struct EulerFlowImpl : torch::nn::Module {
  EulerFlowImpl(int64_t dim, int64_t steps) : steps_(steps) {
    field = register_module("field", torch::nn::Linear(dim, dim));
    gains = register_module("gains", torch::nn::ParameterList());
    const auto h = torch::full({1}, 1.0 / steps);
    for (int64_t k = 0; k < steps; ++k)
      gains->append(h.clone().requires_grad_());
  }

  torch::Tensor forward(torch::Tensor z) {
    for (int64_t k = 0; k < steps_; ++k)
      z = z + gains[k] * torch::tanh(field->forward(z));
    return z;
  }

  torch::nn::Linear field{nullptr};
  torch::nn::ParameterList gains{nullptr};
  int64_t steps_;
};
TORCH_MODULE(EulerFlow);

}  // namespace node

int main() {
  torch::manual_seed(0);
  const int64_t steps = 4;
  const double lr = 0.05;
  node::EulerFlow flow(3, steps);
  torch::optim::SGD opt(flow->parameters(), torch::optim::SGDOptions(lr));

  auto z0 = torch::randn({16, 3});
  auto loss = torch::mse_loss(flow->forward(z0), z0 * 2.0);
  opt.zero_grad();
  loss.backward();

  std::vector<torch::Tensor> expected;
  for (int64_t k = 0; k < steps; ++k)
    expected.push_back(flow->gains[k].detach() - lr * flow->gains[k].grad());
  opt.step();
  for (int64_t k = 0; k < steps; ++k) {
    std::cout << "gain " << k << " = " << flow->gains[k].item<double>() << "\n";
    if (!torch::allclose(flow->gains[k].detach(), expected[k]))
      std::cout << "HARM: gain " << k << " did not take exactly one SGD step\n";
  }
  return 0;
}
