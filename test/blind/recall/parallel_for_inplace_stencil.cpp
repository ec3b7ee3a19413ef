// CASE: a heat-diffusion / image-smoothing step parallelised with
//       at::parallel_for over rows writes each smoothed row back into the grid
//       that the neighbouring chunks still read their halo rows from
// SOURCE: the kind of code in libtorch-based physics simulators; cf.
//         https://github.com/NVIDIA/MatX/issues/1025 (an operator that reads
//         other positions must not write into its own input)
// KIND: bug
// HARM: the smoothed grid differs from the Jacobi update computed from a copy
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdio>

// One explicit diffusion step: u[i] <- u[i] + alpha * (u[i-1] - 2u[i] + u[i+1])
static void diffuse_rows(torch::Tensor grid, double alpha) {
  const int64_t rows = grid.size(0);
  at::parallel_for(1, rows - 1, /*grain_size=*/4, [&](int64_t begin, int64_t end) {  // BUG(libtorch-worker-missing-clone)
    for (int64_t i = begin; i < end; ++i) {
      auto up = grid[i - 1];
      auto down = grid[i + 1];
      auto centre = grid[i];
      auto updated = centre + alpha * (up - 2 * centre + down);
      grid[i].copy_(updated);  // BUG(libtorch-worker-missing-clone)
    }
  });
}

static torch::Tensor reference_step(const torch::Tensor& u, double alpha) {
  auto next = u.clone();
  auto inner = u.slice(0, 1, -1);
  next.slice(0, 1, -1).copy_(inner + alpha * (u.slice(0, 0, -2) - 2 * inner + u.slice(0, 2)));
  return next;
}

int main() {
  torch::manual_seed(5);
  auto grid = torch::zeros({32, 16});
  grid.slice(0, 14, 18).fill_(100.0);  // a hot band in the middle
  const double alpha = 0.2;

  auto expected = reference_step(grid, alpha);
  diffuse_rows(grid, alpha);

  const double err = (grid - expected).abs().max().item<double>();
  std::printf("max deviation from the Jacobi step: %.4f\n", err);
  if (err > 1e-4) {
    std::printf("HARM: rows were smoothed from already-updated neighbours (max error %.4f)\n", err);
  }
  return 0;
}
