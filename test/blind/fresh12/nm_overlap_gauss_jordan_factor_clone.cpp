// CASE: a Gauss-Jordan inverse for small damped curvature blocks eliminates
//       column k from every row with one rank-1 update,
//       M.addr_(factors, pivot_row, 1, -1), where the factors are taken as
//       M.select(1, k).clone() and the pivot row is a division result
// SOURCE: the kind of code in hand-rolled libtorch numerics (K-FAC / Newton
//         steps on small blocks, "vectorised Gauss-Jordan" snippets)
// KIND: near-miss
// WHY-OK: both vectors of the rank-1 update own their storage, so addr_ only
//         reads memory it does not write
#include <torch/torch.h>

#include <iostream>

namespace curvature {

class BlockInverter {
 public:
  explicit BlockInverter(double damping) : damping_(damping) {}

  torch::Tensor operator()(const torch::Tensor& block) const {
    const int64_t n = block.size(0);
    auto A = block + damping_ * torch::eye(n, block.options());
    auto M = torch::cat({A, torch::eye(n, block.options())}, 1);
    for (int64_t k = 0; k < n; ++k) {
      auto factors = M.select(1, k).clone();
      auto pivot_row = M.select(0, k) / factors[k];
      M.addr_(factors, pivot_row, 1.0, -1.0);
      M.select(0, k).copy_(pivot_row);
    }
    return M.narrow(1, n, n);
  }

 private:
  double damping_;
};

}  // namespace curvature

int main() {
  torch::manual_seed(0);
  auto acts = torch::randn({40, 6}, torch::kDouble);
  auto block = acts.t().mm(acts) / 40;
  curvature::BlockInverter invert(0.05);
  auto inv = invert(block);
  auto expected = torch::inverse(block + 0.05 * torch::eye(6, torch::kDouble));
  double err = (inv - expected).abs().max().item<double>();
  if (err > 1e-8)
    std::cout << "HARM: Gauss-Jordan inverse off by " << err << "\n";
  else
    std::cout << "inverse matches torch::inverse (max err " << err << ")\n";
  return 0;
}
