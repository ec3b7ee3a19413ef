// CASE: a differentiable molecular-dynamics step computes a soft pair
//       potential from torch::cdist(pos, pos), takes the forces with
//       energy.backward(), and only then runs its post-force hooks, one of
//       which wraps the positions into the periodic box with
//       pos.detach().remainder_(box)
// SOURCE: the kind of code in TorchMD-style simulators (forces as -dE/dx,
//         in-place PBC wrapping of positions)
// KIND: near-miss
// WHY-OK: the wrap runs after backward has consumed the saved positions; the
//         next step builds a new graph from the wrapped positions
#include <torch/torch.h>
#include <functional>
#include <iostream>
#include <vector>

namespace md {

struct System {
  torch::Tensor pos;  // [N, 3], requires_grad for forces
  torch::Tensor vel;
  double box;
};

torch::Tensor pair_energy(const torch::Tensor& pos, double sigma) {
  auto r = torch::cdist(pos, pos);
  auto off = 1 - torch::eye(pos.size(0));
  return (torch::exp(-r.pow(2) / (2 * sigma * sigma)) * off).sum() / 2;
}

class Integrator {
 public:
  using Hook = std::function<void(System&)>;
  void add_post_force_hook(Hook h) { hooks_.push_back(std::move(h)); }

  double step(System& s, double dt) {
    auto energy = pair_energy(s.pos, 0.8);
    energy.backward();  // forces = -dE/dpos
    {
      torch::NoGradGuard ng;
      s.vel.sub_(s.pos.grad(), dt);
      s.pos.add_(s.vel, dt);
      s.pos.grad().zero_();
    }
    for (auto& h : hooks_) h(s);  // periodic wrapping, neighbour-list refresh
    return energy.item<double>();
  }

 private:
  std::vector<Hook> hooks_;
};

void wrap_into_box(System& s) { s.pos.detach().remainder_(s.box); }

}  // namespace md

int main() {
  torch::manual_seed(0);
  md::System sys{(torch::rand({8, 3}) * 4.0 - 0.5).requires_grad_(), torch::zeros({8, 3}), 3.0};
  md::Integrator integ;
  integ.add_post_force_hook(md::wrap_into_box);
  try {
    for (int t = 0; t < 3; ++t) {
      double e = integ.step(sys, 1e-2);
      std::cout << "step " << t << " E = " << e << "\n";
    }
  } catch (const c10::Error& e) {
    std::string msg = e.what();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  std::cout << "max coordinate " << sys.pos.max().item<double>() << " (box " << sys.box << ")\n";
  return 0;
}
