// CASE: gradient-accumulation windows are handed through a virtual
//       MetricSink interface whose ThreadedSink implementation queues the
//       tensor for a writer thread; the caller zeroes the accumulator in
//       place for the next window right after consume() returns
// SOURCE: the kind of code in training loops that log accumulated gradients
//         through an abstract sink chosen at run time (file, stdout, async)
// KIND: bug
// HARM: the writer thread records gradient norms of 0 for every window
#include <torch/torch.h>

#include <cmath>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

class MetricSink {
 public:
  virtual ~MetricSink() = default;
  virtual void consume(const torch::Tensor& grad_window) = 0;
  virtual std::vector<double> close() = 0;
};

// Writes norms off the training thread; it wakes up when the sink is closed
// (events are written in one batch at the end of the epoch).
class ThreadedSink final : public MetricSink {
 public:
  ThreadedSink() : writer_([this] { run(); }) {}
  ~ThreadedSink() override {
    if (writer_.joinable()) close();
  }
  void consume(const torch::Tensor& grad_window) override {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(grad_window);
  }
  std::vector<double> close() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_one();
    writer_.join();
    return norms_;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return closed_; });
    for (const auto& g : pending_) norms_.push_back(g.norm().item<double>());
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool closed_ = false;
  std::deque<torch::Tensor> pending_;
  std::vector<double> norms_;
  std::thread writer_;
};

std::unique_ptr<MetricSink> make_sink(bool async) {
  if (async) return std::make_unique<ThreadedSink>();
  return nullptr;
}

int main() {
  torch::manual_seed(1);
  auto sink = make_sink(true);
  auto acc = torch::zeros({8});
  std::vector<double> expected;

  for (int window = 0; window < 3; ++window) {
    for (int micro = 0; micro < 4; ++micro) acc.add_(torch::randn({8}));
    expected.push_back(acc.norm().item<double>());
    sink->consume(acc);  // BUG(libtorch-worker-missing-clone)
    acc.zero_();         // BUG(libtorch-worker-missing-clone)
  }

  auto recorded = sink->close();
  for (size_t i = 0; i < recorded.size(); ++i) {
    std::cout << "window " << i << ": recorded " << recorded[i] << ", expected " << expected[i]
              << "\n";
    if (std::abs(recorded[i] - expected[i]) > 1e-6)
      std::cout << "HARM: window " << i << " logged a gradient norm of " << recorded[i]
                << " instead of " << expected[i] << "\n";
  }
  return 0;
}
