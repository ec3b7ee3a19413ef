// CASE: a trajectory-forecasting preprocessor makes (batch, time, 2) tracks
//       relative to their first observed position in place, to avoid a copy
//       of a large batch: `traj.sub_(traj.select(1, 0).unsqueeze(1))`; the
//       operand is a view of the very rows being written
// SOURCE: the kind of code in libtorch ports of Social-GAN / Trajectron
//         (obs_traj_rel = obs_traj - obs_traj[:, :1]) rewritten in place;
//         cf. pytorch/pytorch issues on in-place ops whose operand overlaps
//         the output without raising
// KIND: bug
// HARM: time step 0 is zeroed first, so later steps subtract 0 and stay
//       absolute; PyTorch cannot detect this layout and raises nothing
#include <torch/torch.h>
#include <iostream>

torch::Tensor to_relative_(torch::Tensor traj) {
  traj.sub_(traj.select(1, 0).unsqueeze(1)); // BUG(libtorch-overlapping-inplace)
  return traj;
}

int main() {
  const int64_t batch = 4, steps = 12;
  auto t = torch::arange(steps, torch::kFloat).view({1, steps, 1});
  auto start = torch::tensor({{100.f, 50.f}, {10.f, 10.f}, {-5.f, 3.f}, {0.f, 0.f}});
  auto traj = (start.unsqueeze(1) + t * torch::tensor({1.f, 0.5f})).contiguous();  // (B, T, 2)
  auto expected = traj - traj.narrow(1, 0, 1);  // out of place reference
  auto rel = to_relative_(traj);
  std::cout << "relative step 5 of track 0: " << rel[0][5] << "\n";
  if (!torch::allclose(rel, expected))
    std::cout << "HARM: step 5 of track 0 is (" << rel[0][5][0].item<float>() << ", "
              << rel[0][5][1].item<float>() << "), expected (5, 2.5)\n";
  return 0;
}
