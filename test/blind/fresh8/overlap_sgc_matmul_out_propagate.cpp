// CASE: Simplifying Graph Convolution (SGC) precomputes S^K X; to save memory
//       on a large graph the helper propagates the feature matrix in place
//       with torch::matmul_out(features, s, features), so the product writes
//       into its own right-hand operand
// SOURCE: SGC (Wu et al. 2019) feature precomputation in libtorch GNN code;
//       PyTorch documents that out= must not alias inputs of matrix products
// KIND: bug
// HARM: the propagated features differ from S^K X, so the logistic
//       regression trained on them sees wrong inputs
#include <torch/torch.h>

#include <cstdio>

namespace sgc {

torch::Tensor normalized_adjacency(const torch::Tensor& edges, int64_t nodes) {
  auto a = torch::eye(nodes);
  const auto src = edges.select(0, 0), dst = edges.select(0, 1);
  a.index_put_({src, dst}, torch::ones({edges.size(1)}));
  a.index_put_({dst, src}, torch::ones({edges.size(1)}));
  const auto d = a.sum(1).pow(-0.5);
  return d.unsqueeze(1) * a * d.unsqueeze(0);
}

// features <- S^hops * features, without a second n x d buffer.
void propagate_(torch::Tensor& features, const torch::Tensor& s, int64_t hops) {
  torch::NoGradGuard no_grad;
  for (int64_t k = 0; k < hops; ++k) torch::matmul_out(features, s, features);  // BUG(libtorch-overlapping-inplace)
}

}  // namespace sgc

int main() {
  torch::manual_seed(12);
  constexpr int64_t kNodes = 40, kFeat = 8, kHops = 2;
  const auto edges = torch::randint(0, kNodes, {2, 120}, torch::kLong);
  const auto s = sgc::normalized_adjacency(edges, kNodes);
  auto features = torch::randn({kNodes, kFeat});

  const auto expected = s.mm(s.mm(features));
  sgc::propagate_(features, s, kHops);

  const double off = (features - expected).abs().max().item<double>();
  std::printf("max |S^2 X - propagated| = %.4f\n", off);
  if (off > 1e-4) {
    std::printf("HARM: in-place propagation produced features off by %.4f from S^%ld X\n", off,
                static_cast<long>(kHops));
  }
  return 0;
}
