// CASE: a candidate-retrieval server keeps preallocated score/id buffers
//       per worker; search() scores the catalogue into scores_ with mm_out
//       and then asks topk_out to write the top-k values back into scores_
//       while reading scores_ as its input
// SOURCE: the kind of code in C++ embedding-retrieval services that reuse
//         output buffers across requests to avoid allocations
// KIND: bug
// HARM: the returned top-k scores and ids are not the catalogue's best items
#include <torch/torch.h>
#include <iostream>
#include <utility>

namespace retrieval {

class BruteForceIndex {
 public:
  BruteForceIndex(torch::Tensor items, int64_t k)
      : items_(std::move(items)), k_(k),
        scores_(torch::empty({1, items_.size(0)})),
        ids_(torch::empty({1, k}, torch::kLong)) {}

  // returns (top scores, top ids) for one query embedding
  std::pair<torch::Tensor, torch::Tensor> search(const torch::Tensor& query) {
    torch::NoGradGuard ng;
    at::mm_out(scores_, query.unsqueeze(0), items_.t());
    at::topk_out(scores_, ids_, scores_, k_, /*dim=*/1);  // BUG(libtorch-overlapping-inplace)
    return {scores_, ids_};
  }

 private:
  torch::Tensor items_;
  int64_t k_;
  torch::Tensor scores_, ids_;
};

}  // namespace retrieval

int main() {
  torch::manual_seed(0);
  auto items = torch::nn::functional::normalize(
      torch::randn({64, 16}), torch::nn::functional::NormalizeFuncOptions().dim(1));
  retrieval::BruteForceIndex index(items, 5);
  auto q = items[7] + 0.05 * torch::randn({16});

  auto expected = std::get<1>(q.unsqueeze(0).mm(items.t()).topk(5, 1));
  auto result = index.search(q);
  std::cout << "ids " << result.second << "\nexpected " << expected << "\n";
  if (!result.second.equal(expected))
    std::cout << "HARM: topk_out over its own input returned ids starting "
              << result.second[0][0].item<int64_t>() << " instead of "
              << expected[0][0].item<int64_t>() << "\n";
  return 0;
}
