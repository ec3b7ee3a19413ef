// CASE: gradient-accumulation windows go through a virtual MetricSink whose
//       ThreadedSink queues the tensor for a writer thread; the caller zeroes
//       the accumulator in place after each window
// SOURCE: the kind of code in training loops that log accumulated gradients
//         through an abstract sink chosen at run time
// KIND: near-miss
// WHY-OK: the caller calls sink->flush() before acc.zero_(); flush() returns
//         only once the writer thread has reduced every queued tensor to its
//         norm and dropped it
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
  virtual void flush() = 0;
  virtual std::vector<double> close() = 0;
};

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
  void flush() override {
    std::unique_lock<std::mutex> lock(mu_);
    flush_requested_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return pending_.empty() && !flush_requested_; });
  }
  std::vector<double> close() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
    writer_.join();
    return norms_;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return closed_ || flush_requested_; });
      while (!pending_.empty()) {
        norms_.push_back(pending_.front().norm().item<double>());
        pending_.pop_front();
      }
      flush_requested_ = false;
      cv_.notify_all();
      if (closed_) return;
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool closed_ = false;
  bool flush_requested_ = false;
  std::deque<torch::Tensor> pending_;
  std::vector<double> norms_;
  std::thread writer_;
};

int main() {
  torch::manual_seed(1);
  std::unique_ptr<MetricSink> sink = std::make_unique<ThreadedSink>();
  auto acc = torch::zeros({8});
  std::vector<double> expected;

  for (int window = 0; window < 3; ++window) {
    for (int micro = 0; micro < 4; ++micro) acc.add_(torch::randn({8}));
    expected.push_back(acc.norm().item<double>());
    sink->consume(acc);
    sink->flush();
    acc.zero_();
  }

  auto recorded = sink->close();
  for (size_t i = 0; i < recorded.size(); ++i) {
    std::cout << "window " << i << ": recorded " << recorded[i] << ", expected " << expected[i]
              << "\n";
    if (std::abs(recorded[i] - expected[i]) > 1e-6)
      std::cout << "HARM: window " << i << " logged " << recorded[i] << "\n";
  }
  return 0;
}
