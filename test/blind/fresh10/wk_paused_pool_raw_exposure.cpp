// CASE: per-frame exposure statistics are queued on a BS::thread_pool-style
//       pool that is paused while the batch is assembled; the frames handed to
//       the tasks are then normalised in place for the network before the pool
//       is unpaused
// SOURCE: the kind of preprocessing code built on bshoshany/thread-pool
//         (pause() / push_task() / unpause() / wait_for_tasks()) in C++
//         inference services
// KIND: bug
// HARM: the exposure monitor records the mean of the ImageNet-normalised
//       frames (about 0.25) instead of the raw brightness (about 0.5)
#include <torch/torch.h>

#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace bs {
class thread_pool {
 public:
  explicit thread_pool(unsigned n) {
    for (unsigned i = 0; i < n; ++i) workers_.emplace_back([this] { worker(); });
  }
  ~thread_pool() {
    wait_for_tasks();
    { std::lock_guard<std::mutex> lk(mu_); running_ = false; }
    task_cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  template <class F, class... A>
  void push_task(F&& f, A&&... args) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      tasks_.push_back(std::bind(std::forward<F>(f), std::forward<A>(args)...));
      ++pending_;
    }
    task_cv_.notify_one();
  }
  void pause() { std::lock_guard<std::mutex> lk(mu_); paused_ = true; }
  void unpause() { { std::lock_guard<std::mutex> lk(mu_); paused_ = false; } task_cv_.notify_all(); }
  void wait_for_tasks() { std::unique_lock<std::mutex> lk(mu_); done_cv_.wait(lk, [this] { return pending_ == 0; }); }

 private:
  void worker() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lk(mu_);
        task_cv_.wait(lk, [this] { return !running_ || (!paused_ && !tasks_.empty()); });
        if (!running_) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
      { std::lock_guard<std::mutex> lk(mu_); --pending_; }
      done_cv_.notify_all();
    }
  }
  std::vector<std::thread> workers_;
  std::deque<std::function<void()>> tasks_;
  std::mutex mu_;
  std::condition_variable task_cv_, done_cv_;
  size_t pending_ = 0;
  bool paused_ = false, running_ = true;
};
}  // namespace bs

struct ExposureMonitor {
  std::mutex mu;
  std::vector<double> brightness;
  void record(size_t slot, torch::Tensor frame) {
    const double b = frame.mean().item<double>();
    std::lock_guard<std::mutex> lk(mu);
    brightness[slot] = b;
  }
};

static std::vector<torch::Tensor> decode_batch(size_t n) {
  torch::manual_seed(7);
  std::vector<torch::Tensor> frames;
  for (size_t i = 0; i < n; ++i) frames.push_back(torch::rand({3, 24, 24}));
  return frames;
}

int main() {
  bs::thread_pool pool(2);
  ExposureMonitor monitor;
  const auto kMean = torch::tensor({0.485, 0.456, 0.406}).view({3, 1, 1});
  const auto kStd = torch::tensor({0.229, 0.224, 0.225}).view({3, 1, 1});
  auto conv = torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1));

  auto frames = decode_batch(4);
  monitor.brightness.assign(frames.size(), 0.0);
  const double raw0 = frames[0].mean().item<double>();

  // keep the statistics jobs off the cores until the batch is on its way
  pool.pause();
  for (size_t i = 0; i < frames.size(); ++i)
    pool.push_task(&ExposureMonitor::record, &monitor, i, frames[i]);  // BUG(libtorch-worker-missing-clone)
  for (auto& f : frames) f.sub_(kMean).div_(kStd);  // BUG(libtorch-worker-missing-clone)
  torch::Tensor logits;
  {
    torch::NoGradGuard no_grad;
    logits = conv->forward(torch::stack(frames)).mean();
  }
  pool.unpause();
  pool.wait_for_tasks();

  std::printf("frame 0: raw brightness %.3f, monitor recorded %.3f (logit %.3f)\n", raw0,
              monitor.brightness[0], logits.item<double>());
  if (std::abs(monitor.brightness[0] - raw0) > 1e-3)
    std::printf("HARM: exposure monitor recorded %.3f for a frame whose raw brightness is %.3f\n",
                monitor.brightness[0], raw0);
  return 0;
}
