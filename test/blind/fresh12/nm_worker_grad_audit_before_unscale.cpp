// CASE: a loss-scaling trainer gives an at::TensorList over the .grad()
//       tensors to an overflow audit started with std::async, and unscales
//       the same gradients in place with torch::_foreach_mul_; the audit's
//       verdict decides whether the step is skipped, so the trainer calls
//       get() on it before the unscale
// SOURCE: the kind of code in C++ mixed-precision trainers (a hand-written
//         GradScaler that checks for inf/nan off the training thread while
//         the loss scale bookkeeping runs)
// KIND: near-miss
// WHY-OK: the future is consumed before _foreach_mul_ writes the gradients,
//         so the audit has finished reading them
#include <torch/torch.h>

#include <future>
#include <iostream>
#include <vector>

namespace amp {

struct Audit {
  bool finite = true;
  double max_abs = 0;
};

std::future<Audit> audit_async(at::TensorList grads) {
  return std::async(std::launch::async, [grads] {
    Audit a;
    for (const auto& g : grads) {
      a.finite = a.finite && torch::isfinite(g).all().item<bool>();
      a.max_abs = std::max(a.max_abs, g.abs().max().item<double>());
    }
    return a;
  });
}

}  // namespace amp

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential net(torch::nn::Linear(8, 16), torch::nn::GELU(), torch::nn::Linear(16, 2));
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.01));
  double loss_scale = 4096.0;

  auto x = torch::randn({32, 8});
  auto y = torch::randn({32, 2});
  opt.zero_grad();
  (torch::mse_loss(net->forward(x), y) * loss_scale).backward();

  std::vector<torch::Tensor> grads;
  for (auto& p : net->parameters()) grads.push_back(p.grad());
  double expected_max = 0;
  for (auto& g : grads) expected_max = std::max(expected_max, g.abs().max().item<double>());

  auto pending = amp::audit_async(grads);
  amp::Audit verdict = pending.get();  // the step depends on it
  if (verdict.finite) {
    torch::_foreach_mul_(grads, 1.0 / loss_scale);
    opt.step();
  } else {
    loss_scale /= 2;
  }

  if (std::abs(verdict.max_abs - expected_max) > 1e-6 * expected_max)
    std::cout << "HARM: audit saw max |g| " << verdict.max_abs << ", scaled gradients have " << expected_max << "\n";
  else
    std::cout << "audit saw the scaled gradients (max |g| " << verdict.max_abs << ")\n";
  return 0;
}
