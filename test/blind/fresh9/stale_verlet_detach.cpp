// CASE: a position-based cloth/particle simulator keeps "the positions at
//       the start of the step" as x_.detach(), advances x_ in place
//       (prediction and ground projection), then derives velocities from
//       x_ - x_prev, reading the alias as if it held the old positions
// SOURCE: the kind of code in libtorch ports of position-based dynamics /
//         Verlet integrators (discuss.pytorch.org: "x_old = x.detach() does
//         not keep the old value")
// KIND: bug
// HARM: every particle's velocity comes out exactly 0 after a step under
//       gravity
#include <torch/torch.h>

#include <cmath>
#include <iostream>

namespace sim {

class ParticleSystem {
 public:
  explicit ParticleSystem(int64_t n)
      : x_(torch::rand({n, 3}) + torch::tensor({0.0, 2.0, 0.0})), v_(torch::zeros({n, 3})) {}

  void step(double dt) {
    torch::NoGradGuard no_grad;
    auto x_prev = x_.detach();  // BUG(libtorch-inplace-on-view)
    x_.add_(v_, dt).add_(gravity_, dt * dt);  // BUG(libtorch-inplace-on-view)
    for (int it = 0; it < 4; ++it) project_ground_();
    v_ = (x_ - x_prev) / dt;  // BUG(libtorch-inplace-on-view)
  }
  const torch::Tensor& velocity() const { return v_; }

 private:
  void project_ground_() { x_.select(1, 1).clamp_min_(0.0); }

  torch::Tensor x_, v_;
  torch::Tensor gravity_ = torch::tensor({0.0f, -9.81f, 0.0f});
};

}  // namespace sim

int main() {
  torch::manual_seed(0);
  sim::ParticleSystem cloth(64);
  const double dt = 1.0 / 60;
  cloth.step(dt);
  const double vy = cloth.velocity().select(1, 1).mean().item<double>();
  std::cout << "mean vertical velocity after one step: " << vy << " (expected "
            << -9.81 * dt << ")\n";
  if (std::abs(vy + 9.81 * dt) > 1e-3)
    std::cout << "HARM: velocities computed against the already-advanced positions (vy = " << vy
              << ")\n";
  return 0;
}
