// CASE: a batch-hard triplet loss computes Euclidean distances with sqrt()
//       (which saves its result for backward), then keeps each anchor from
//       picking itself by writing a large value on the diagonal through the
//       flat-stride trick dist.view({-1}).slice(0, 0, n * n, n + 1).fill_()
// SOURCE: the kind of code in libtorch re-identification / metric-learning
//         ports (batch-hard triplet mining, numpy's flat[::n+1] diagonal
//         idiom)
// KIND: bug
// HARM: backward throws because sqrt's saved output was modified in place
#include <torch/torch.h>

#include <iostream>

namespace reid {

torch::Tensor pairwise_dist(const torch::Tensor& e) {
  auto sq = e.pow(2).sum(1);
  auto d2 = sq.unsqueeze(1) + sq.unsqueeze(0) - 2 * e.mm(e.t());
  return d2.clamp_min(1e-12).sqrt();
}

torch::Tensor batch_hard_triplet(const torch::Tensor& emb, const torch::Tensor& labels, double margin) {
  const int64_t n = emb.size(0);
  auto dist = pairwise_dist(emb);
  dist.view({-1}).slice(0, 0, n * n, n + 1).fill_(1e4);  // BUG(libtorch-inplace-on-view)
  auto same = labels.unsqueeze(0) == labels.unsqueeze(1);
  auto hardest_pos = dist.masked_fill(~same, -1.0).masked_fill(dist > 1e3, -1.0).amax(1);
  auto hardest_neg = dist.masked_fill(same, 1e4).amin(1);
  return torch::relu(hardest_pos - hardest_neg + margin).mean();
}

}  // namespace reid

int main() {
  torch::manual_seed(0);
  torch::nn::Linear embed(10, 4);
  auto x = torch::randn({8, 10});
  auto labels = torch::tensor({0, 0, 1, 1, 2, 2, 3, 3});

  auto loss = reid::batch_hard_triplet(embed(x), labels, 0.3);
  try {
    loss.backward();  // BUG(libtorch-inplace-on-view)
    std::cout << "triplet loss " << loss.item<float>() << ", grad norm "
              << embed->weight.grad().norm().item<float>() << "\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: backward failed: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
