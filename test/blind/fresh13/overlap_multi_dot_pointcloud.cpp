// CASE: a lidar pipeline moves a preallocated homogeneous point cloud into
//       the world frame with at::linalg_multi_dot_out(points_, {T_world_ego,
//       T_ego_lidar, points_}); multi_dot multiplies the two 4x4 poses first
//       and then runs mm_out with the cloud as both the right operand and
//       the output
// SOURCE: the kind of code in C++ robotics / 3D-detection preprocessing that
//         chains rigid transforms into a reused buffer to avoid allocations
// KIND: bug
// HARM: the transformed points are garbage (far from T_world_ego T_ego_lidar p)

#include <torch/torch.h>

#include <cmath>
#include <cstdio>

torch::Tensor pose(double yaw, double tx, double ty, double tz) {
  auto T = torch::eye(4, torch::kFloat);
  T[0][0] = std::cos(yaw);
  T[0][1] = -std::sin(yaw);
  T[1][0] = std::sin(yaw);
  T[1][1] = std::cos(yaw);
  T[0][3] = tx;
  T[1][3] = ty;
  T[2][3] = tz;
  return T;
}

class SweepAccumulator {
 public:
  explicit SweepAccumulator(int64_t max_points) : points_(torch::ones({4, max_points})) {}

  // Loads xyz (N x 3) into the homogeneous buffer.
  void load(const torch::Tensor& xyz) {
    points_.narrow(0, 0, 3).copy_(xyz.t());
    points_[3].fill_(1.0);
  }

  // Moves the cloud from the lidar frame to the world frame, in place.
  void to_world(const torch::Tensor& T_world_ego, const torch::Tensor& T_ego_lidar) {
    at::linalg_multi_dot_out(points_, {T_world_ego, T_ego_lidar, points_});  // BUG(libtorch-overlapping-inplace)
  }

  torch::Tensor xyz() const { return points_.narrow(0, 0, 3).t(); }

 private:
  torch::Tensor points_;
};

int main() {
  torch::manual_seed(0);
  const int64_t n = 2048;
  auto xyz = 20.0 * torch::rand({n, 3}) - 10.0;
  auto T_world_ego = pose(0.4, 105.0, -32.0, 0.0);
  auto T_ego_lidar = pose(-0.02, 1.2, 0.0, 1.8);

  SweepAccumulator sweep(n);
  sweep.load(xyz);
  sweep.to_world(T_world_ego, T_ego_lidar);

  auto homog = torch::cat({xyz.t(), torch::ones({1, n})}, 0);
  auto expected = T_world_ego.mm(T_ego_lidar).mm(homog).narrow(0, 0, 3).t();
  double err = (sweep.xyz() - expected).abs().max().item<double>();
  std::printf("max error of the world-frame cloud: %.4f m\n", err);
  if (err > 1e-3)
    std::printf("HARM: the world-frame points are off by up to %.2f m (the output of "
                "mm_out was also its input)\n", err);
  return 0;
}
