// CASE: a background prefetcher decodes image batches into one of two
//       preallocated slot tensors and hands the slot's handles to the
//       training thread; it refills a slot in place only after the trainer
//       has given that slot back through a free-slot queue
// SOURCE: double-buffered input pipelines in libtorch trainers (pinned
//       staging buffers reused round-robin)
// KIND: near-miss
// WHY-OK: ownership of a slot passes back and forth through the two
//       queues; the producer never writes a slot the trainer still reads
#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

namespace {

template <typename T>
class Channel {
 public:
  void push(T v) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      q_.push_back(std::move(v));
    }
    cv_.notify_one();
  }
  T pop() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !q_.empty(); });
    T v = std::move(q_.front());
    q_.pop_front();
    return v;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> q_;
};

struct Slot {
  int index = -1;
  torch::Tensor images, labels;
};

}  // namespace

int main() {
  constexpr int kBatches = 6;
  std::vector<Slot> slots(2);
  for (int s = 0; s < 2; ++s) slots[s] = {s, torch::empty({4, 3, 8, 8}), torch::empty({4}, torch::kLong)};

  Channel<int> free_slots;
  Channel<std::pair<int, int>> ready;  // (slot, batch id), batch id -1 ends
  free_slots.push(0);
  free_slots.push(1);

  std::thread loader([&] {
    for (int b = 0; b < kBatches; ++b) {
      int s = free_slots.pop();
      slots[s].images.fill_(static_cast<float>(b));
      slots[s].labels.copy_(torch::arange(4, torch::kLong).add_(4 * b));
      ready.push({s, b});
    }
    ready.push({-1, -1});
  });

  int mismatched = 0;
  for (;;) {
    auto [s, b] = ready.pop();
    if (s < 0) break;
    const Slot& slot = slots[s];
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the training step
    bool ok = slot.labels[0].item<int64_t>() == 4 * b && slot.images.mean().item<float>() == static_cast<float>(b);
    std::cout << "trained on batch " << b << (ok ? "" : " (contents of another batch)") << "\n";
    mismatched += !ok;
    free_slots.push(s);
  }
  loader.join();
  if (mismatched) std::cout << "HARM: " << mismatched << " batches were overwritten while in use\n";
  return 0;
}
