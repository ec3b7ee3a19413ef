// CASE: odometry accumulates the robot pose by multiplying each incremental
//       transform onto it with at::matmul_out(pose, pose, delta)
// SOURCE: https://github.com/pytorch/pytorch/issues/114350 (torch.matmul with
//         out= one of its inputs produces zeros on CPU)
// KIND: bug
// HARM: the accumulated pose is wrong (measured: silently, no error)
#include <torch/torch.h>

#include <cmath>
#include <cstdio>

static torch::Tensor se2(double theta, double tx, double ty) {
  return torch::tensor({{std::cos(theta), -std::sin(theta), tx},
                        {std::sin(theta), std::cos(theta), ty},
                        {0.0, 0.0, 1.0}});
}

class Odometry {
 public:
  Odometry() : pose_(torch::eye(3, torch::kDouble)) {}
  void integrate(const torch::Tensor& delta) {
    at::matmul_out(pose_, pose_, delta);  // BUG(libtorch-overlapping-inplace)
  }
  const torch::Tensor& pose() const { return pose_; }

 private:
  torch::Tensor pose_;
};

int main() {
  Odometry odo;
  auto expected = torch::eye(3, torch::kDouble);
  for (int i = 0; i < 4; ++i) {
    auto delta = se2(0.1 * (i + 1), 0.5, 0.05 * i).to(torch::kDouble);
    expected = torch::matmul(expected, delta);
    try {
      odo.integrate(delta);
    } catch (const c10::Error& e) {
      std::printf("HARM: matmul_out threw: %s\n", e.what_without_backtrace());
      return 0;
    }
  }
  const double err = (odo.pose() - expected).abs().max().item<double>();
  std::printf("final pose error %.6g\n", err);
  if (err > 1e-9) std::printf("HARM: pose integrated through aliased matmul_out is wrong (error %.6g)\n", err);
  return 0;
}
