// CASE: a candidate-retrieval server keeps preallocated buffers per worker:
//       search() scores the catalogue into scores_ with mm_out and lets
//       topk_out write the top-k values and ids into their own buffers
//       top_scores_ / top_ids_, returning those
// SOURCE: the kind of code in C++ embedding-retrieval services that reuse
//         output buffers across requests
// KIND: near-miss
// WHY-OK: topk_out's outputs are distinct from its input scores_, so the
//         selection reads an untouched score row
#include <torch/torch.h>
#include <iostream>
#include <utility>

namespace retrieval {

class BruteForceIndex {
 public:
  BruteForceIndex(torch::Tensor items, int64_t k)
      : items_(std::move(items)), k_(k),
        scores_(torch::empty({1, items_.size(0)})),
        top_scores_(torch::empty({1, k})),
        top_ids_(torch::empty({1, k}, torch::kLong)) {}

  std::pair<torch::Tensor, torch::Tensor> search(const torch::Tensor& query) {
    torch::NoGradGuard ng;
    at::mm_out(scores_, query.unsqueeze(0), items_.t());
    at::topk_out(top_scores_, top_ids_, scores_, k_, /*dim=*/1);
    return {top_scores_, top_ids_};
  }

 private:
  torch::Tensor items_;
  int64_t k_;
  torch::Tensor scores_, top_scores_, top_ids_;
};

}  // namespace retrieval

int main() {
  torch::manual_seed(0);
  auto items = torch::nn::functional::normalize(
      torch::randn({64, 16}), torch::nn::functional::NormalizeFuncOptions().dim(1));
  retrieval::BruteForceIndex index(items, 5);
  for (int r = 0; r < 3; ++r) {
    auto q = items[7 + r] + 0.05 * torch::randn({16});
    auto expected = std::get<1>(q.unsqueeze(0).mm(items.t()).topk(5, 1));
    auto result = index.search(q);
    std::cout << "request " << r << ": top id " << result.second[0][0].item<int64_t>() << "\n";
    if (!result.second.equal(expected))
      std::cout << "HARM: request " << r << " returned the wrong candidates\n";
  }
  return 0;
}
