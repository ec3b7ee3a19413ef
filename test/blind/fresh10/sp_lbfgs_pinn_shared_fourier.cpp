// CASE: a physics-informed network for a 1D beam predicts displacement and
//       moment with two Sequentials that share the input Fourier-feature layer
//       (the moment net is built from u_net->ptr<LinearImpl>(0)); both nets are
//       registered, and L-BFGS over model->parameters() gathers and applies the
//       shared layer's slice twice
// SOURCE: the kind of PINN code (L-BFGS with a closure, autograd::grad for the
//         PDE residual) ported from PyTorch PINN tutorials to libtorch
// KIND: bug
// HARM: after one L-BFGS step the shared layer differs from a run that lists
//       every tensor once
#include <torch/torch.h>

#include <cstdio>
#include <unordered_set>
#include <vector>

struct BeamPinnImpl : torch::nn::Module {
  BeamPinnImpl() {
    u_net = register_module("u_net", torch::nn::Sequential(torch::nn::Linear(1, 16), torch::nn::Tanh(),
                                                             torch::nn::Linear(16, 1)));
    m_net = torch::nn::Sequential(u_net->ptr<torch::nn::LinearImpl>(0), torch::nn::Tanh(), torch::nn::Linear(16, 1));
    register_module("m_net", m_net);  // BUG(libtorch-shared-parameter-update)
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

static torch::Tensor shared_weight_after_step(bool list_once) {
  torch::manual_seed(8);
  BeamPinn model;
  std::vector<torch::Tensor> params = model->parameters();  // BUG(libtorch-shared-parameter-update)
  if (list_once) {
    std::unordered_set<void*> seen;
    std::vector<torch::Tensor> once;
    for (auto& p : params) if (seen.insert(p.unsafeGetTensorImpl()).second) once.push_back(p);
    params = once;
  }
  torch::optim::LBFGS opt(params, torch::optim::LBFGSOptions(0.5).max_iter(5));  // BUG(libtorch-shared-parameter-update)
  auto x = torch::linspace(0, 1, 33).unsqueeze(1).requires_grad_(true);
  opt.step([&] {  // BUG(libtorch-shared-parameter-update)
    opt.zero_grad();
    auto loss = model->residual(x);
    loss.backward();
    return loss;
  });
  return model->u_net->ptr<torch::nn::LinearImpl>(0)->weight.detach().clone();
}

int main() {
  const auto as_listed = shared_weight_after_step(false);
  const auto listed_once = shared_weight_after_step(true);
  const double diff = (as_listed - listed_once).abs().max().item<double>();
  std::printf("shared Fourier layer after one L-BFGS step: max difference %.5f\n", diff);
  if (diff > 1e-5)
    std::printf("HARM: the shared layer's L-BFGS step differs by %.5f from the step with each tensor listed once\n", diff);
  return 0;
}
