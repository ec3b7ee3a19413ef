// CASE: a two-tower retrieval trainer schedules its recall@k evaluation with
//       std::async(std::launch::deferred, ...) over the item table and only
//       collects it in report(); the sparse hand-written update index_add_s
//       into the same table before the deferred task runs
// SOURCE: the kind of code in recommendation trainers (lazy "eval every N
//         steps" futures, hand-rolled sparse embedding updates)
// KIND: bug
// HARM: the recall scheduled at step 1 is computed on the table of step 2
#include <torch/torch.h>
#include <future>
#include <iostream>
#include <vector>

namespace recsys {

// Fraction of queries whose positive item is in the top-k of the table.
double recall_at_k(torch::Tensor items, torch::Tensor queries,
                   torch::Tensor positives, int64_t k) {
  torch::NoGradGuard ng;
  auto scores = queries.mm(items.t());
  auto topk = std::get<1>(scores.topk(k, /*dim=*/1));
  auto hit = (topk == positives.unsqueeze(1)).any(1);
  return hit.to(torch::kFloat).mean().item<double>();
}

class RetrievalTrainer {
 public:
  RetrievalTrainer(int64_t n_items, int64_t dim)
      : items_(torch::randn({n_items, dim})) {}

  void schedule_eval(const torch::Tensor& queries, const torch::Tensor& pos) {
    // lazily evaluated: runs when report() asks for it
    pending_.push_back(std::async(std::launch::deferred, recall_at_k, items_,  // BUG(libtorch-worker-missing-clone)
                                  queries, pos, int64_t{1}));
    reference_.push_back(recall_at_k(items_.clone(), queries, pos, 1));  // for the demo only
  }

  // sparse update of the rows touched by the batch
  void apply_sparse_grad(const torch::Tensor& rows, const torch::Tensor& grad,
                         double lr) {
    torch::NoGradGuard ng;
    items_.index_add_(0, rows, grad, -lr);  // BUG(libtorch-worker-missing-clone)
  }

  void report() {
    for (size_t i = 0; i < pending_.size(); ++i) {
      double got = pending_[i].get();
      std::cout << "eval " << i << ": recall@1 = " << got << "\n";
      if (got != reference_[i])
        std::cout << "HARM: recall scheduled at step " << i + 1 << " reads the"
                  << " updated table (" << got << " vs " << reference_[i] << ")\n";
    }
    pending_.clear();
  }

 private:
  torch::Tensor items_;
  std::vector<std::future<double>> pending_;
  std::vector<double> reference_;
};

}  // namespace recsys

int main() {
  torch::manual_seed(0);
  recsys::RetrievalTrainer trainer(16, 8);
  auto queries = torch::randn({4, 8});
  auto positives = torch::tensor({0, 1, 2, 3}, torch::kLong);

  trainer.schedule_eval(queries, positives);  // step 1
  // step 2: push the positives strongly towards the queries
  trainer.apply_sparse_grad(positives, -queries * 50.0, 1.0);  // BUG(libtorch-worker-missing-clone)
  trainer.report();
  return 0;
}
