// CASE: a discrete-residual PINN for viscous Burgers computes the residual
//       u_t + (u^2/2)_x - nu * u_xx (conservative form) from the network's
//       output u, then a helper pins the Dirichlet boundary values of u
//       through a TensorAccessor (so the exported field is exact) before
//       loss.backward(); u was saved by the pow of the flux term
// SOURCE: the kind of code in physics-informed training loops written in C++
//         (accessor writes for boundary conditions, finite-difference residuals)
// KIND: bug
// HARM: the network's gradient differs from the gradient of the loss it computed
#include <torch/torch.h>
#include <iostream>

namespace pinn {

struct Grid { int64_t n; double dx, dt, nu; };

// exact u = 0 on both ends of the domain
void enforce_dirichlet(torch::Tensor& u) {
  auto a = u.accessor<float, 1>();
  a[0] = 0.0f;  // BUG(libtorch-detached-write)
  a[a.size(0) - 1] = 0.0f;  // BUG(libtorch-detached-write)
}

torch::Tensor burgers_residual(const torch::Tensor& u, const torch::Tensor& u_prev, const Grid& g) {
  using torch::indexing::None;
  using torch::indexing::Slice;
  auto inner = Slice(1, -1), right = Slice(2, None), left = Slice(None, -2);
  auto u_t = (u.index({inner}) - u_prev.index({inner})) / g.dt;
  auto flux = 0.5 * u.pow(2);
  auto flux_x = (flux.index({right}) - flux.index({left})) / (2 * g.dx);
  auto u_xx = (u.index({right}) - 2 * u.index({inner}) + u.index({left})) / (g.dx * g.dx);
  return u_t + flux_x - g.nu * u_xx;
}

}  // namespace pinn

int main() {
  torch::manual_seed(0);
  pinn::Grid g{16, 1.0 / 15, 1e-2, 0.05};
  auto xs = torch::linspace(0, 1, g.n).unsqueeze(1);
  auto u_prev = torch::sin(3.14159265358979 * xs.squeeze(1));
  torch::nn::Sequential net(torch::nn::Linear(1, 16), torch::nn::Tanh(), torch::nn::Linear(16, 1));

  // reference: the gradient of the residual loss as computed
  auto ref_u = net->forward(xs).squeeze(1);
  pinn::burgers_residual(ref_u, u_prev, g).pow(2).mean().backward();
  auto ref_grad = net[0]->as<torch::nn::Linear>()->weight.grad().clone();
  net->zero_grad();

  auto u = net->forward(xs).squeeze(1);
  auto loss = pinn::burgers_residual(u, u_prev, g).pow(2).mean();
  pinn::enforce_dirichlet(u);  // BUG(libtorch-detached-write)
  loss.backward();
  auto grad = net[0]->as<torch::nn::Linear>()->weight.grad();
  double err = (grad - ref_grad).abs().max().item<double>();
  std::cout << "loss " << loss.item<double>() << ", max |grad - ref| = " << err << "\n";
  if (err > 1e-6)
    std::cout << "HARM: backward used the pinned boundary values; gradient off by " << err << "\n";
  return 0;
}
