// CASE: a graph::PowerIteration helper computes PageRank with
//       at::addmv_out(rank, teleport, M, rank): the out tensor is also the
//       vector the matrix multiplies, so rows written early are read by rows
//       computed later
// SOURCE: the kind of code in libtorch graph-analytics utilities that avoid
//         allocating a new rank vector per iteration
// KIND: bug
// HARM: the ranks differ from the out-of-place power iteration
#include <torch/torch.h>

#include <iostream>
#include <optional>

namespace graph {

class PowerIteration {
 public:
  PowerIteration(torch::Tensor transition, double damping)
      : m_(std::move(transition)), d_(damping) {}

  const torch::Tensor& run(int iters) {
    const auto n = m_.size(0);
    auto teleport = torch::full({n}, (1.0 - d_) / n, m_.options());
    if (!rank_) rank_ = torch::full({n}, 1.0 / n, m_.options());
    for (int i = 0; i < iters; ++i)
      at::addmv_out(*rank_, teleport, m_, *rank_, /*beta=*/1.0, /*alpha=*/d_);  // BUG(libtorch-overlapping-inplace)
    return *rank_;
  }

 private:
  torch::Tensor m_;
  double d_;
  std::optional<torch::Tensor> rank_;
};

torch::Tensor column_stochastic(const torch::Tensor& adjacency) {
  return adjacency / adjacency.sum(0, /*keepdim=*/true).clamp_min(1.0);
}

}  // namespace graph

int main() {
  torch::manual_seed(13);
  auto adj = (torch::rand({6, 6}, torch::kDouble) > 0.5).to(torch::kDouble);
  adj.fill_diagonal_(0.0);
  adj.index_put_({0, 1}, 1.0);
  auto m = graph::column_stochastic(adj);

  const double d = 0.85;
  auto ref = torch::full({6}, 1.0 / 6, torch::kDouble);
  auto teleport = torch::full({6}, (1.0 - d) / 6, torch::kDouble);
  for (int i = 0; i < 30; ++i) ref = teleport + d * m.mv(ref);

  graph::PowerIteration pr(m, d);
  const auto& rank = pr.run(30);
  const double err = (rank - ref).abs().max().item<double>();
  std::cout << "rank error " << err << "\n";
  if (err > 1e-9) std::cout << "HARM: PageRank is off the power iteration by " << err << "\n";
  return 0;
}
