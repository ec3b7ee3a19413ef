// CASE: a capture loop converts each camera frame into one preallocated
//       staging tensor with at::mul_out and pushes that tensor onto a queue
//       drained by an inference thread; the next frame is converted into the
//       same staging tensor while the previous one is still queued
// SOURCE: https://github.com/invergent-ai/surogate/issues/124
// KIND: bug
// HARM: the inference thread sees the last frame three times instead of
//       three different frames
#include <torch/torch.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

class FrameQueue {
 public:
  void push(torch::Tensor frame) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      frames_.push_back(std::move(frame));
    }
    cv_.notify_one();
  }

  bool pop(torch::Tensor& out) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return closed_ || !frames_.empty(); });
    if (frames_.empty()) {
      return false;
    }
    out = std::move(frames_.front());
    frames_.pop_front();
    return true;
  }

  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<torch::Tensor> frames_;
  bool closed_ = false;
};

static void inference_loop(FrameQueue& queue, std::vector<double>& brightness) {
  torch::Tensor frame;
  while (queue.pop(frame)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // model latency
    brightness.push_back(frame.mean().item<double>());
  }
}

int main() {
  FrameQueue queue;
  std::vector<double> brightness;
  std::thread consumer(inference_loop, std::ref(queue), std::ref(brightness));

  auto staging = torch::empty({3, 8, 8});
  const auto scale = torch::tensor(1.0f / 255.0f);
  for (int i = 0; i < 3; ++i) {
    auto raw = torch::full({3, 8, 8}, 50.0f * (i + 1));  // stands in for a camera frame
    at::mul_out(staging, raw, scale);  // BUG(libtorch-worker-missing-clone)
    queue.push(staging);  // BUG(libtorch-worker-missing-clone)
  }
  queue.close();
  consumer.join();

  bool wrong = false;
  for (size_t i = 0; i < brightness.size(); ++i) {
    double expected = 50.0 * (i + 1) / 255.0;
    std::cout << "frame " << i << ": " << brightness[i] << " (expected " << expected << ")\n";
    if (std::abs(brightness[i] - expected) > 1e-4) {
      wrong = true;
    }
  }
  if (wrong) {
    std::cout << "HARM: the inference thread read frames that were overwritten by later ones\n";
  }
  return 0;
}
