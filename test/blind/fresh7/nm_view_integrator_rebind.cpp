// CASE: an integrator class template keeps squeeze(1) of its position state
//       as "before", lets the Scheme policy advance the positions, and then
//       measures the displacement against "before"
// SOURCE: the kind of code in differentiable-physics / particle simulations
//         written with libtorch that accumulate odometry per step
// KIND: near-miss
// WHY-OK: the Scheme policies are functional: they return new tensors and
//         the integrator rebinds pos_ and vel_, so "before" still views the
//         old, untouched storage
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <utility>

struct SemiImplicitEuler {
  static std::pair<torch::Tensor, torch::Tensor> advance(const torch::Tensor& pos,
                                                         const torch::Tensor& vel, double dt) {
    auto v = vel - 9.81 * dt;
    return {pos + v * dt, v};
  }
};

template <class Scheme>
class Integrator {
 public:
  Integrator(torch::Tensor pos, torch::Tensor vel) : pos_(std::move(pos)), vel_(std::move(vel)) {}

  double step(double dt) {
    auto before = pos_.squeeze(1);
    std::tie(pos_, vel_) = Scheme::advance(pos_, vel_, dt);
    auto moved = (pos_.squeeze(1) - before).abs().sum().item<double>();
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
    std::cout << "HARM: the integrator reports a path length of " << sim.travelled() << "\n";
  return 0;
}
