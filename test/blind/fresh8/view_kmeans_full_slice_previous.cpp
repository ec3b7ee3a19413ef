// CASE: a k-means quantiser (codebook initialisation for product
//       quantisation) keeps "the previous centroids" as
//       centroids_.index({Slice()}) -- the libtorch spelling of c[:] -- then
//       updates centroids_ row by row with index_put_ and measures the shift
//       against that full-slice view
// SOURCE: the kind of code in libtorch vector-quantisation / PQ index
//       builders; c_old = c[:] is a well-known NumPy/PyTorch pitfall (a view,
//       not a copy)
// KIND: bug
// HARM: the shift always reads 0, so the loop "converges" after the first
//       iteration while the centroids are still moving
#include <torch/torch.h>

#include <cstdio>

namespace quant {

using torch::indexing::Slice;

class KMeans {
 public:
  KMeans(int64_t k, double tol) : k_(k), tol_(tol) {}

  int fit(const torch::Tensor& x, int max_iter) {
    centroids_ = x.narrow(0, 0, k_).clone();  // deliberately poor seeding
    for (int it = 1; it <= max_iter; ++it) {
      const auto previous = centroids_.index({Slice()});  // BUG(libtorch-inplace-on-view)
      const auto assign = torch::cdist(x, centroids_).argmin(1);
      for (int64_t c = 0; c < k_; ++c) {
        const auto members = x.index({assign == c});
        if (members.size(0) > 0) centroids_.index_put_({c}, members.mean(0));  // BUG(libtorch-inplace-on-view)
      }
      const double shift = (centroids_ - previous).norm().item<double>();  // BUG(libtorch-inplace-on-view)
      if (shift < tol_) return it;
    }
    return max_iter;
  }

  const torch::Tensor& centroids() const { return centroids_; }

 private:
  int64_t k_;
  double tol_;
  torch::Tensor centroids_;
};

torch::Tensor lloyd_step(const torch::Tensor& x, const torch::Tensor& c) {
  const auto assign = torch::cdist(x, c).argmin(1);
  auto next = c.clone();
  for (int64_t j = 0; j < c.size(0); ++j) {
    const auto members = x.index({assign == j});
    if (members.size(0) > 0) next[j] = members.mean(0);
  }
  return next;
}

}  // namespace quant

int main() {
  torch::manual_seed(10);
  const auto centers = torch::tensor({{0.0f, 0.0f}, {6.0f, 0.0f}, {0.0f, 6.0f}});
  const auto labels = torch::arange(300, torch::kLong).div(100, "floor");  // sorted by blob
  const auto x = centers.index({labels}) + torch::randn({300, 2}) * 0.5;

  quant::KMeans km(3, 1e-4);
  const int iters = km.fit(x, 50);
  const double still = (quant::lloyd_step(x, km.centroids()) - km.centroids()).norm().item<double>();
  std::printf("k-means stopped after %d iteration(s); one more Lloyd step moves %.4f\n", iters,
              still);
  if (still > 1e-4) {
    std::printf("HARM: declared converged after %d iteration(s) while the centroids still "
                "move %.4f per step\n",
                iters, still);
  }
  return 0;
}
