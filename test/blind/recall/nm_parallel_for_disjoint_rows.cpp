// CASE: the diffusion step with at::parallel_for reads the old grid and
//       writes each chunk's rows into a separate output grid
// SOURCE: the kind of code in libtorch-based physics simulators (Jacobi update
//         with a second buffer)
// KIND: near-miss
// WHY-OK: each chunk writes only its own rows of `next`, and nothing writes
//         the grid the chunks read
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdio>

static torch::Tensor diffuse_rows(const torch::Tensor& grid, double alpha) {
  auto next = grid.clone();
  const int64_t rows = grid.size(0);
  at::parallel_for(1, rows - 1, /*grain_size=*/4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      auto centre = grid[i];
      next[i].copy_(centre + alpha * (grid[i - 1] - 2 * centre + grid[i + 1]));
    }
  });
  return next;
}

int main() {
  auto grid = torch::zeros({32, 16});
  grid.slice(0, 14, 18).fill_(100.0);
  const double alpha = 0.2;

  auto inner = grid.slice(0, 1, -1);
  auto expected = grid.clone();
  expected.slice(0, 1, -1).copy_(inner + alpha * (grid.slice(0, 0, -2) - 2 * inner + grid.slice(0, 2)));

  auto next = diffuse_rows(grid, alpha);
  const double err = (next - expected).abs().max().item<double>();
  std::printf("max deviation from the Jacobi step: %.6f\n", err);
  if (err > 1e-4) std::printf("HARM: rows were smoothed from updated neighbours\n");
  return 0;
}
