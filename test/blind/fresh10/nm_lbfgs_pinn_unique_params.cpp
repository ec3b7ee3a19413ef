// CASE: a physics-informed network for a 1D beam predicts displacement and
//       moment with two registered Sequentials sharing the input Fourier-feature
//       layer; the L-BFGS parameter list is passed through a helper that sorts
//       the tensors by TensorImpl and drops repeats with std::unique
// SOURCE: the kind of PINN code (L-BFGS with a closure, autograd::grad for the
//         PDE residual) ported from PyTorch PINN tutorials to libtorch
// KIND: near-miss
// WHY-OK: the optimizer sees each tensor once, so the shared layer is
//         gathered and updated once per L-BFGS iteration
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <vector>

struct BeamPinnImpl : torch::nn::Module {
  BeamPinnImpl() {
    u_net = register_module("u_net", torch::nn::Sequential(torch::nn::Linear(1, 16), torch::nn::Tanh(),
                                                             torch::nn::Linear(16, 1)));
    m_net = torch::nn::Sequential(u_net->ptr<torch::nn::LinearImpl>(0), torch::nn::Tanh(), torch::nn::Linear(16, 1));
    register_module("m_net", m_net);
  }
  // EI u'' = m,  m'' = -q  on a unit beam with q = 1
  torch::Tensor residual(const torch::Tensor& x) {
    auto d2 = [](const torch::Tensor& y, const torch::Tensor& x) {
      auto dy = torch::autograd::grad({y.sum()}, {x}, {}, true, true)[0];
      return torch::autograd::grad({dy.sum()}, {x}, {}, true, true)[0];
    };
    auto u = u_net->forward(x), m = m_net->forward(x);
    auto r1 = d2(u, x) - m, r2 = d2(m, x) + 1.0;
    auto ends = torch::tensor({{0.0}, {1.0}});
    return r1.pow(2).mean() + r2.pow(2).mean() + u_net->forward(ends).pow(2).mean() + m_net->forward(ends).pow(2).mean();
  }
  torch::nn::Sequential u_net{nullptr}, m_net{nullptr};
};
TORCH_MODULE(BeamPinn);

namespace util {
std::vector<torch::Tensor> unique_tensors(std::vector<torch::Tensor> ts) {
  auto key = [](const torch::Tensor& t) { return t.unsafeGetTensorImpl(); };
  std::sort(ts.begin(), ts.end(), [&](const torch::Tensor& a, const torch::Tensor& b) { return key(a) < key(b); });
  ts.erase(std::unique(ts.begin(), ts.end(), [&](const torch::Tensor& a, const torch::Tensor& b) { return key(a) == key(b); }),
           ts.end());
  return ts;
}
}  // namespace util

int main() {
  torch::manual_seed(8);
  BeamPinn model;
  const auto listed = model->parameters();
  const auto params = util::unique_tensors(listed);
  torch::optim::LBFGS opt(params, torch::optim::LBFGSOptions(0.5).max_iter(5));
  auto x = torch::linspace(0, 1, 33).unsqueeze(1).requires_grad_(true);
  const double before = model->residual(x).item<double>();
  for (int outer = 0; outer < 3; ++outer) {
    opt.step([&] {
      opt.zero_grad();
      auto loss = model->residual(x);
      loss.backward();
      return loss;
    });
  }
  const double after = model->residual(x).item<double>();
  std::printf("%zu registered entries, %zu optimised tensors; residual %.5f -> %.5f\n", listed.size(),
              params.size(), before, after);
  if (params.size() != listed.size() - 2)
    std::printf("HARM: the optimizer list still holds a repeated tensor\n");
  return 0;
}
