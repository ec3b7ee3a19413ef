// CASE: a batched rigid-body integrator computes the centripetal term
//       omega x (omega x r) with one preallocated scratch tensor, writing the
//       second cross product into the scratch it reads from
// SOURCE: the kind of differentiable-physics step (rigid bodies in libtorch,
//         allocation-free inner loop with *_out variants)
// KIND: bug
// HARM: the centripetal acceleration is wrong: (-4, -8, 0) instead of
//       (-4, -2, 0) for omega = (0, 0, 2), r = (1, 0.5, 0)
#include <torch/torch.h>

#include <cstdio>
#include <utility>

namespace sim {

class RigidBodies {
 public:
  RigidBodies(torch::Tensor com, torch::Tensor offsets, torch::Tensor omega)
      : com_(std::move(com)), r_(std::move(offsets)), omega_(std::move(omega)),
        scratch_(torch::empty_like(r_)), accel_(torch::empty_like(r_)) {}

  // acceleration of each marker point in the world frame (no angular acceleration)
  const torch::Tensor& marker_acceleration(const torch::Tensor& com_accel) {
    torch::linalg_cross_out(scratch_, omega_, r_);        // omega x r
    torch::linalg_cross_out(scratch_, omega_, scratch_);  // BUG(libtorch-overlapping-inplace)
    torch::add_out(accel_, com_accel, scratch_);
    return accel_;
  }
  void advance(double dt) {
    // rotate the offsets: r += dt * omega x r
    torch::linalg_cross_out(scratch_, omega_, r_);
    r_.add_(scratch_, dt);
  }
  const torch::Tensor& offsets() const { return r_; }
  const torch::Tensor& omega() const { return omega_; }

 private:
  torch::Tensor com_, r_, omega_, scratch_, accel_;
};

}  // namespace sim

int main() {
  auto omega = torch::tensor({{0.0, 0.0, 2.0}, {1.0, 0.0, 0.0}});
  auto offsets = torch::tensor({{1.0, 0.5, 0.0}, {0.0, 1.0, 1.0}});
  sim::RigidBodies bodies(torch::zeros({2, 3}), offsets, omega);
  const auto gravity = torch::tensor({0.0, 0.0, -9.81}).expand({2, 3});

  const auto expected = torch::linalg_cross(omega, torch::linalg_cross(omega, offsets)) + gravity;
  const auto got = bodies.marker_acceleration(gravity).clone();
  bodies.advance(0.01);

  std::printf("body 0 marker acceleration: (%.2f, %.2f, %.2f), expected (%.2f, %.2f, %.2f)\n",
              got[0][0].item<double>(), got[0][1].item<double>(), got[0][2].item<double>(),
              expected[0][0].item<double>(), expected[0][1].item<double>(), expected[0][2].item<double>());
  const double err = (got - expected).abs().max().item<double>();
  if (err > 1e-6) std::printf("HARM: centripetal acceleration off by %.3f\n", err);
  return 0;
}
