// CASE: a background prefetcher class decodes each image batch into its
//       member staging tensors and pushes (input, target) pairs of those
//       handles into a shuffle buffer that a training thread drains once it
//       holds enough batches
// SOURCE: the kind of code in libtorch image-classification trainers that
//       replace torch::data with their own prefetch thread and queue
//       (cf. https://discuss.pytorch.org/t/multi-threaded-single-gpu-libtorch-usage/187823)
// KIND: bug
// HARM: the trainer sees the last batch several times and never the others
#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace {

using Batch = std::pair<torch::Tensor, torch::Tensor>;

class ShuffleBuffer {
 public:
  explicit ShuffleBuffer(size_t min_fill) : min_fill_(min_fill) {}

  void push(Batch b) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      items_.push_back(std::move(b));
    }
    cv_.notify_all();
  }

  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

  // Waits until the buffer is full enough to shuffle (or closed).
  bool pop(Batch& out) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return items_.size() >= min_fill_ || closed_; });
    if (items_.empty()) return false;
    size_t pick = (items_.size() * 7 + 3) % items_.size();
    out = items_[pick];
    items_.erase(items_.begin() + static_cast<long>(pick));
    return true;
  }

 private:
  size_t min_fill_;
  bool closed_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> items_;
};

class Prefetcher {
 public:
  explicit Prefetcher(ShuffleBuffer& out)
      : out_(out), images_(torch::empty({4, 3, 8, 8})), labels_(torch::empty({4}, torch::kLong)) {}

  void run(int batches) {
    for (int b = 0; b < batches; ++b) {
      decode(b);
      out_.push({images_, labels_});  // BUG(libtorch-worker-missing-clone)
    }
    out_.close();
  }

 private:
  void decode(int b) {
    images_.fill_(static_cast<float>(b));  // BUG(libtorch-worker-missing-clone)
    labels_.copy_(torch::arange(4, torch::kLong).add_(4 * b));  // BUG(libtorch-worker-missing-clone)
  }

  ShuffleBuffer& out_;
  torch::Tensor images_;
  torch::Tensor labels_;
};

}  // namespace

int main() {
  constexpr int kBatches = 4;
  ShuffleBuffer buffer(kBatches);
  std::vector<int64_t> seen;

  std::thread trainer([&] {
    Batch b;
    while (buffer.pop(b)) {
      seen.push_back(b.second[0].item<int64_t>() / 4);
    }
  });
  Prefetcher prefetcher(buffer);
  std::thread loader([&] { prefetcher.run(kBatches); });  // BUG(libtorch-worker-missing-clone)
  loader.join();
  trainer.join();

  std::vector<int> count(kBatches, 0);
  for (auto id : seen) {
    std::cout << "trained on batch " << id << "\n";
    if (id >= 0 && id < kBatches) ++count[id];
  }
  int missing = 0;
  for (int b = 0; b < kBatches; ++b) missing += count[b] == 0;
  if (missing) {
    std::cout << "HARM: " << missing << " of " << kBatches
              << " batches never reached the trainer; it saw the prefetcher's last staging contents instead\n";
  }
  return 0;
}
