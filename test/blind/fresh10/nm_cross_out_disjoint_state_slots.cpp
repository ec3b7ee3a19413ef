// CASE: a batched rigid-body integrator keeps offsets, angular velocity, a
//       scratch slot and the acceleration as column blocks of one [N, 12]
//       state tensor and computes omega x (omega x r) with cross_out between
//       narrow() views of that tensor
// SOURCE: the kind of differentiable-physics step (rigid bodies in libtorch,
//         structure-of-arrays state, allocation-free inner loop with *_out
//         variants)
// KIND: near-miss
// WHY-OK: every cross_out writes a column block that neither of its inputs
//         covers, so no output overlaps an input
#include <torch/torch.h>

#include <cstdio>

namespace sim {

class RigidBodies {
 public:
  RigidBodies(const torch::Tensor& offsets, const torch::Tensor& omega) : state_(torch::zeros({offsets.size(0), 12})) {
    r().copy_(offsets);
    w().copy_(omega);
  }
  torch::Tensor r() { return state_.narrow(1, 0, 3); }
  torch::Tensor w() { return state_.narrow(1, 3, 3); }
  torch::Tensor tmp() { return state_.narrow(1, 6, 3); }
  torch::Tensor acc() { return state_.narrow(1, 9, 3); }

  torch::Tensor marker_acceleration(const torch::Tensor& com_accel) {
    auto t = tmp(), a = acc();
    torch::linalg_cross_out(t, w(), r());  // omega x r
    torch::linalg_cross_out(a, w(), t);    // omega x (omega x r)
    a.add_(com_accel);
    return a;
  }
  void advance(double dt) {
    auto t = tmp();
    torch::linalg_cross_out(t, w(), r());
    r().add_(t, dt);
  }

 private:
  torch::Tensor state_;
};

}  // namespace sim

int main() {
  auto omega = torch::tensor({{0.0, 0.0, 2.0}, {1.0, 0.0, 0.0}});
  auto offsets = torch::tensor({{1.0, 0.5, 0.0}, {0.0, 1.0, 1.0}});
  sim::RigidBodies bodies(offsets, omega);
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
