// CASE: an integrator class template keeps squeeze(1) of its position state
//       as "before", lets the Scheme policy advance the positions in place,
//       and then measures the displacement against "before", which is a view
//       of the same storage
// SOURCE: the kind of code in differentiable-physics / particle simulations
//         written with libtorch that accumulate odometry per step
// KIND: bug
// HARM: the travelled distance is 0 instead of the real path length
#include <torch/torch.h>

#include <cmath>
#include <iostream>

struct Euler {
  static void advance(torch::Tensor& pos, torch::Tensor& vel, double dt) {
    pos.add_(vel, dt);
  }
};

struct SemiImplicitEuler {
  static void advance(torch::Tensor& pos, torch::Tensor& vel, double dt) {
    vel.add_(-9.81 * dt);
    pos.add_(vel, dt);
  }
};

template <class Scheme>
class Integrator {
 public:
  Integrator(torch::Tensor pos, torch::Tensor vel) : pos_(std::move(pos)), vel_(std::move(vel)) {}

  double step(double dt) {
    auto before = pos_.squeeze(1);  // BUG(libtorch-inplace-on-view)
    Scheme::advance(pos_, vel_, dt);  // BUG(libtorch-inplace-on-view)
    auto moved = (pos_.squeeze(1) - before).abs().sum().item<double>();  // BUG(libtorch-inplace-on-view)
    travelled_ += moved;
    return moved;
  }
  double travelled() const { return travelled_; }

 private:
  torch::Tensor pos_;  // N x 1 heights
  torch::Tensor vel_;  // N x 1
  double travelled_ = 0.0;
};

int main() {
  auto pos = torch::full({5, 1}, 10.0, torch::kDouble);
  auto vel = torch::linspace(0.0, 4.0, 5, torch::kDouble).unsqueeze(1);
  Integrator<SemiImplicitEuler> sim(pos, vel);

  // reference path length, integrated out of place
  auto p = pos.clone(), v = vel.clone();
  double expected = 0.0;
  const double dt = 0.01;
  for (int i = 0; i < 20; ++i) {
    v = v - 9.81 * dt;
    auto next = p + v * dt;
    expected += (next - p).abs().sum().item<double>();
    p = next;
  }

  for (int i = 0; i < 20; ++i) sim.step(dt);
  std::cout << "travelled " << sim.travelled() << ", expected " << expected << "\n";
  if (std::abs(sim.travelled() - expected) > 1e-9)
    std::cout << "HARM: the integrator reports a path length of " << sim.travelled()
              << " instead of " << expected << "\n";
  return 0;
}
