// CASE: a Simple Graph Convolution (SGC) preprocessor raises its normalised
//       adjacency to the K-th power in place with matrix_power_out(S, S, K)
//       "to avoid a second N x N buffer", then propagates the features
// SOURCE: the kind of SGC / SIGN feature precomputation (S^K X) written in
//         libtorch for graph learning pipelines
// KIND: bug
// HARM: the propagated features differ from S^K X (rows of S^K no longer sum
//       to 1 for this row-stochastic S)
#include <torch/torch.h>

#include <cstdio>
#include <vector>

namespace graph {

class SgcPrecompute {
 public:
  SgcPrecompute(const torch::Tensor& edge_index, int64_t num_nodes, int64_t hops) : hops_(hops) {
    s_ = torch::eye(num_nodes);  // self loops
    s_.index_put_({edge_index[0], edge_index[1]}, torch::ones({edge_index.size(1)}));
    s_.div_(s_.sum(1, /*keepdim=*/true));  // row-normalised random-walk matrix
  }
  torch::Tensor propagate(const torch::Tensor& x) {
    torch::matrix_power_out(s_, s_, hops_);  // BUG(libtorch-overlapping-inplace)
    return s_.mm(x);
  }
  const torch::Tensor& operator_matrix() const { return s_; }

 private:
  torch::Tensor s_;
  int64_t hops_;
};

}  // namespace graph

int main() {
  torch::manual_seed(14);
  const int64_t n = 6;
  std::vector<int64_t> src = {0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 0};
  std::vector<int64_t> dst = {1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 0, 5};
  auto edge_index = torch::stack({torch::tensor(src), torch::tensor(dst)});
  auto x = torch::randn({n, 4});

  graph::SgcPrecompute pre(edge_index, n, /*hops=*/2);
  const auto reference = torch::matrix_power(pre.operator_matrix().clone(), 2).mm(x);
  const auto features = pre.propagate(x);

  const double err = (features - reference).abs().max().item<double>();
  const double row0 = pre.operator_matrix()[0].sum().item<double>();
  std::printf("S^K row 0 sums to %.3f; feature deviation %.4f\n", row0, err);
  if (err > 1e-5) std::printf("HARM: propagated features are off by %.4f (row sum %.3f)\n", err, row0);
  return 0;
}
