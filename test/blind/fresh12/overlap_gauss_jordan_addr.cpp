// CASE: a Gauss-Jordan inverse (used to invert a small Fisher/Hessian block in
//       a natural-gradient step) eliminates column k from every row at once
//       with the rank-1 update M.addr_(M.select(1, k), pivot_row, 1, -1),
//       where the column factors are a view of the matrix being updated
// SOURCE: the kind of code in hand-rolled libtorch numerics (K-FAC / Newton
//         steps on small blocks, "vectorised Gauss-Jordan" snippets)
// KIND: bug
// HARM: addr_ writes M while reading its own column, so later elements of a
//       row use a factor it has already zeroed; 1.13 does not detect the
//       overlap and returns a wrong inverse
#include <torch/torch.h>

#include <iostream>

namespace ngd {

torch::Tensor gauss_jordan_inverse(const torch::Tensor& A) {
  const int64_t n = A.size(0);
  auto M = torch::cat({A, torch::eye(n, A.options())}, 1);  // [A | I], A SPD: no pivoting
  for (int64_t k = 0; k < n; ++k) {
    auto pivot_row = M.select(0, k) / M[k][k];
    M.addr_(M.select(1, k), pivot_row, 1.0, -1.0);  // BUG(libtorch-overlapping-inplace)
    M.select(0, k).copy_(pivot_row);
  }
  return M.narrow(1, n, n);
}

}  // namespace ngd

int main() {
  torch::manual_seed(0);
  auto X = torch::randn({32, 5}, torch::kDouble);
  auto fisher = X.t().mm(X) / 32 + 0.1 * torch::eye(5, torch::kDouble);
  auto expected = torch::inverse(fisher);
  try {
    auto inv = ngd::gauss_jordan_inverse(fisher);
    double err = (inv - expected).abs().max().item<double>();
    if (err > 1e-8)
      std::cout << "HARM: Gauss-Jordan inverse off by " << err << "\n";
    else
      std::cout << "inverse matches torch::inverse\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: addr_ threw: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
