// CASE: a heterogeneous-GNN feature store keeps node features in a
//       c10::Dict<std::string, at::Tensor> and "copies" it into an exporter
//       thread's lambda (a c10::Dict copy shares its entries); the next
//       message-passing round then scatter_add_s messages into the "user"
//       features in place before the exporter gets its IO slot
// SOURCE: the kind of code in GNN serving / feature-store exporters that pass
//         TorchScript-compatible c10::Dict containers between threads
// KIND: bug
// HARM: the round-1 export contains the messages of round 2
#include <torch/torch.h>
#include <ATen/core/Dict.h>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

namespace graphstore {

using FeatureDict = c10::Dict<std::string, at::Tensor>;

class IoSlot {
 public:
  void open() { { std::lock_guard<std::mutex> g(mu_); open_ = true; } cv_.notify_all(); }
  void acquire() { std::unique_lock<std::mutex> lk(mu_); cv_.wait(lk, [&] { return open_; }); }
 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

struct ExportResult { double user_norm = 0; double item_norm = 0; };

std::thread export_round(FeatureDict feats, IoSlot& slot, ExportResult& out) {
  return std::thread([feats, &slot, &out] {  // BUG(libtorch-worker-missing-clone)
    slot.acquire();
    out.user_norm = feats.at("user").norm().item<double>();
    out.item_norm = feats.at("item").norm().item<double>();
  });
}

// one round of item -> user message passing over the click edges
void propagate(FeatureDict& feats, const at::Tensor& src, const at::Tensor& dst) {
  auto msgs = feats.at("item").index_select(0, src);
  auto user = feats.at("user");
  user.scatter_add_(0, dst.unsqueeze(1).expand({-1, user.size(1)}), msgs);  // BUG(libtorch-worker-missing-clone)
}

}  // namespace graphstore

int main() {
  torch::manual_seed(0);
  graphstore::FeatureDict feats;
  feats.insert("user", torch::zeros({3, 4}));
  feats.insert("item", torch::ones({5, 4}));
  auto src = torch::tensor({0, 1, 2, 3, 4}, torch::kLong);
  auto dst = torch::tensor({0, 0, 1, 2, 2}, torch::kLong);

  graphstore::propagate(feats, src, dst);  // round 1
  double expected = feats.at("user").norm().item<double>();
  graphstore::IoSlot slot;
  graphstore::ExportResult res;
  auto exporter = graphstore::export_round(feats, slot, res);  // BUG(libtorch-worker-missing-clone)

  graphstore::propagate(feats, src, dst);  // round 2 starts at once  // BUG(libtorch-worker-missing-clone)
  slot.open();
  exporter.join();
  std::cout << "exported |user| = " << res.user_norm << " (round 1: " << expected << ")\n";
  if (std::abs(res.user_norm - expected) > 1e-6)
    std::cout << "HARM: the round-1 export holds the user features of round 2\n";
  return 0;
}
