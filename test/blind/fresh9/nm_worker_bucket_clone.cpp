// CASE: a clone of a gradient bucket is handed to a top-k compression job on a
//       progschj-style ThreadPool (enqueue packs the arguments into a tuple
//       and std::apply's them), then the trainer zeroes the bucket for the
//       next accumulation window while the job waits for its peers
// SOURCE: the kind of code in hand-rolled data-parallel libtorch trainers with
//         gradient compression (Deep Gradient Compression / top-k sparsified
//         all-reduce) built on https://github.com/progschj/ThreadPool
// KIND: near-miss
// WHY-OK: the job gets bucket.clone(), so zeroing the live bucket for the
//         next window does not touch the tensor being compressed
#include <torch/torch.h>

#include <cmath>
#include <condition_variable>
#include <functional>
#include <future>
#include <iostream>
#include <mutex>
#include <queue>
#include <thread>
#include <tuple>
#include <vector>

class ThreadPool {
 public:
  explicit ThreadPool(size_t n) {
    for (size_t i = 0; i < n; ++i)
      workers_.emplace_back([this] {
        for (;;) {
          std::function<void()> task;
          {
            std::unique_lock<std::mutex> lk(mu_);
            cv_.wait(lk, [this] { return stop_ || !tasks_.empty(); });
            if (stop_ && tasks_.empty()) return;
            task = std::move(tasks_.front());
            tasks_.pop();
          }
          task();
        }
      });
  }
  template <class F, class... Args>
  auto enqueue(F&& f, Args&&... args) -> std::future<std::invoke_result_t<F, Args...>> {
    using R = std::invoke_result_t<F, Args...>;
    auto task = std::make_shared<std::packaged_task<R()>>(
        [fn = std::forward<F>(f), tup = std::make_tuple(std::forward<Args>(args)...)]() mutable {
          return std::apply(fn, tup);
        });
    auto fut = task->get_future();
    {
      std::lock_guard<std::mutex> lk(mu_);
      tasks_.emplace([task] { (*task)(); });
    }
    cv_.notify_one();
    return fut;
  }
  ~ThreadPool() {
    { std::lock_guard<std::mutex> lk(mu_); stop_ = true; }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

 private:
  std::vector<std::thread> workers_;
  std::queue<std::function<void()>> tasks_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

// Keeps the k largest-magnitude entries; runs once all peers reached the barrier.
torch::Tensor compress_topk(torch::Tensor bucket, int64_t k, std::shared_future<void> peers) {
  peers.wait();
  auto idx = std::get<1>(bucket.abs().topk(k));
  return bucket.index_select(0, idx);
}

int main() {
  torch::manual_seed(0);
  ThreadPool pool(2);
  auto bucket = torch::randn({1024});  // accumulated gradients of one bucket
  const double expected = std::get<0>(bucket.abs().topk(32)).norm().item<double>();

  std::promise<void> barrier;
  auto peers = barrier.get_future().share();
  auto msg = pool.enqueue(compress_topk, bucket.clone(), int64_t{32}, peers);

  bucket.zero_();
  barrier.set_value();  // the other ranks arrive

  const double sent = msg.get().norm().item<double>();
  std::cout << "expected message norm " << expected << ", sent " << sent << "\n";
  if (std::abs(sent - expected) > 1e-4)
    std::cout << "HARM: compressed gradient message has norm " << sent << " instead of "
              << expected << "\n";
  return 0;
}
