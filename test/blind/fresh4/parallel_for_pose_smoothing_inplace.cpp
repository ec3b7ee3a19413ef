// CASE: a pose-estimation post-processor smooths joint trajectories with a
//       3-tap moving average, parallelised over frames with at::parallel_for
//       and written back in place; a frame's smoothed value is read as the
//       "previous frame" by the next iteration (on the same chunk or another
//       thread), so the filter becomes a recursive one
// SOURCE: video/pose pipelines written against libtorch's at::parallel_for;
//         the same neighbour read/write race fixed in
//         https://github.com/taichi-dev/taichi/pull/5346
// KIND: bug
// HARM: smoothed frames differ from the moving average of the input
#include <torch/torch.h>
#include <ATen/Parallel.h>

#include <iostream>

// Smooth poses [frames, joints] in place, keeping the first and last frame.
void smooth_in_place(torch::Tensor poses) {
  const int64_t frames = poses.size(0);
  at::parallel_for(1, frames - 1, /*grain_size=*/8, [&](int64_t begin, int64_t end) {  // BUG(libtorch-worker-missing-clone)
    for (int64_t t = begin; t < end; ++t) {
      auto average = (poses[t - 1] + poses[t] + poses[t + 1]) / 3.0;
      poses[t].copy_(average);  // BUG(libtorch-worker-missing-clone)
    }
  });
}

int main() {
  torch::manual_seed(0);
  const int64_t frames = 64, joints = 17;
  auto track = torch::cumsum(torch::randn({frames, joints}), 0);  // jittery keypoint x

  auto input = track.clone();
  auto expected = track.clone();
  expected.slice(0, 1, frames - 1)
      .copy_((input.slice(0, 0, frames - 2) + input.slice(0, 1, frames - 1) +
              input.slice(0, 2, frames)) / 3.0);

  smooth_in_place(track);

  const double max_error = (track - expected).abs().max().item<double>();
  std::cout << "frame 2 joint 0: smoothed " << track[2][0].item<double>() << ", moving average "
            << expected[2][0].item<double>() << " (max error " << max_error << ")\n";
  if (max_error > 1e-5)
    std::cout << "HARM: in-place parallel smoothing read already smoothed neighbours, max error "
              << max_error << "\n";
  return 0;
}
