// CASE: a retrieval trainer schedules recall@k with
//       std::async(std::launch::deferred, ...) over its item table, and the
//       sparse update forces every pending evaluation (wait()) before it
//       index_add_s into the table; report() later only collects results
// SOURCE: the kind of code in recommendation trainers with lazy evaluation
//         futures and hand-rolled sparse embedding updates
// KIND: near-miss
// WHY-OK: a deferred task runs inside wait(), on this thread, so every
//         evaluation has read the table before the first in-place update
#include <torch/torch.h>
#include <future>
#include <iostream>
#include <vector>

namespace recsys {

double recall_at_k(torch::Tensor items, torch::Tensor queries,
                   torch::Tensor positives, int64_t k) {
  torch::NoGradGuard ng;
  auto topk = std::get<1>(queries.mm(items.t()).topk(k, /*dim=*/1));
  return (topk == positives.unsqueeze(1)).any(1).to(torch::kFloat).mean().item<double>();
}

class RetrievalTrainer {
 public:
  RetrievalTrainer(int64_t n_items, int64_t dim) : items_(torch::randn({n_items, dim})) {}

  void schedule_eval(const torch::Tensor& queries, const torch::Tensor& pos) {
    pending_.push_back(std::async(std::launch::deferred, recall_at_k, items_,
                                  queries, pos, int64_t{1}));
    reference_.push_back(recall_at_k(items_.clone(), queries, pos, 1));  // for the demo only
  }

  void apply_sparse_grad(const torch::Tensor& rows, const torch::Tensor& grad, double lr) {
    for (auto& f : pending_) f.wait();  // evaluations see the table they were scheduled on
    torch::NoGradGuard ng;
    items_.index_add_(0, rows, grad, -lr);
  }

  void report() {
    for (size_t i = 0; i < pending_.size(); ++i) {
      double got = pending_[i].get();
      std::cout << "eval " << i << ": recall@1 = " << got << "\n";
      if (got != reference_[i])
        std::cout << "HARM: recall " << i << " read the updated table\n";
    }
    pending_.clear();
    reference_.clear();
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
  trainer.schedule_eval(queries, positives);
  trainer.apply_sparse_grad(positives, -queries * 50.0, 1.0);
  trainer.schedule_eval(queries, positives);
  trainer.report();
  return 0;
}
