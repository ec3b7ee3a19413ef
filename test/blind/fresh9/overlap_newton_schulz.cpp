// CASE: a Muon-style optimizer orthogonalises each attention head's update
//       with Newton-Schulz iterations X <- 1.5 X - 0.5 (X X^T) X written as
//       torch::baddbmm_out(X, X, A, X, 1.5, -0.5): the out tensor is also the
//       second batch-matmul operand
// SOURCE: the kind of code in libtorch ports of the Muon optimizer /
//         polar-decomposition orthogonalisation of per-head weight updates
// KIND: bug
// HARM: the orthogonalised updates differ from the out-of-place iteration
//       (bmm reads rows of X that it has already overwritten)
#include <torch/torch.h>

#include <iostream>
#include <vector>

namespace muon {

torch::Tensor frob_normalised(const torch::Tensor& g) {
  return g / (g.flatten(1).norm(2, {1}).view({-1, 1, 1}) + 1e-7);
}

void orthogonalise_(torch::Tensor& X, int steps) {
  for (int i = 0; i < steps; ++i) {
    auto A = torch::bmm(X, X.transpose(1, 2));
    torch::baddbmm_out(X, X, A, X, /*beta=*/1.5, /*alpha=*/-0.5);  // BUG(libtorch-overlapping-inplace)
  }
}

torch::Tensor orthogonalised(torch::Tensor X, int steps) {
  for (int i = 0; i < steps; ++i) X = torch::baddbmm(X, torch::bmm(X, X.transpose(1, 2)), X, 1.5, -0.5);
  return X;
}

}  // namespace muon

int main() {
  torch::manual_seed(0);
  torch::NoGradGuard ng;
  const int64_t heads = 4, d = 8;
  auto grad = torch::randn({heads, d, d});  // per-head update of a q/k/v projection

  auto reference = muon::orthogonalised(muon::frob_normalised(grad), 5);
  auto update = muon::frob_normalised(grad);
  muon::orthogonalise_(update, 5);

  const double err = (update - reference).abs().max().item<double>();
  std::cout << "deviation from the out-of-place Newton-Schulz iteration: " << err << "\n";
  if (err > 1e-5)
    std::cout << "HARM: in-place baddbmm_out gave a different orthogonalised update (max "
                 "deviation "
              << err << ")\n";
  return 0;
}
