// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Arguments that an executor packs with the callable it queues (Note
// [Arguments an executor forwards]), in the style of progschj/ThreadPool.

#include <torch/torch.h>

#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

class ThreadPool {
public:
  explicit ThreadPool(size_t n) {
    for (size_t i = 0; i < n; ++i)
      workers_.emplace_back([this] {
        for (;;) {
          std::function<void()> task;
          {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
            if (stop_ && tasks_.empty())
              return;
            task = std::move(tasks_.front());
            tasks_.pop();
          }
          task();
        }
      });
  }
  template <class F, class... Args>
  auto enqueue(F &&f, Args &&...args) -> std::future<std::invoke_result_t<F, Args...>> {
    using R = std::invoke_result_t<F, Args...>;
    auto task = std::make_shared<std::packaged_task<R()>>(
        std::bind(std::forward<F>(f), std::forward<Args>(args)...));
    auto result = task->get_future();
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.emplace([task] { (*task)(); });
    }
    cv_.notify_one();
    return result;
  }

private:
  std::vector<std::thread> workers_;
  std::queue<std::function<void()>> tasks_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

torch::Tensor compress(torch::Tensor bucket, int64_t k);

struct Scale {
  torch::Tensor operator()(torch::Tensor t) const { return t * 2; }
};

void PositiveFunctionAndArguments(ThreadPool &pool) {
  auto bucket = torch::randn({1024});
  auto message = pool.enqueue(compress, bucket, int64_t{32});
  // CHECK-NOTES: :[[@LINE-1]]:41: warning: argument 'bucket' shares its storage with worker entry point 'ThreadPool::enqueue' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-47]]:7: note: 'ThreadPool::enqueue' hands the callable to this worker
  // CHECK-NOTES: :[[@LINE+1]]:10: note: 'zero_' writes 'bucket' in place here
  bucket.zero_();
  message.get();
}

void PositiveFunctionObjectAndArguments(ThreadPool &pool, torch::Tensor frame) {
  auto scaled = pool.enqueue(Scale{}, frame);
  // CHECK-NOTES: :[[@LINE-1]]:39: warning: argument 'frame' shares its storage with worker entry point 'ThreadPool::enqueue' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-56]]:7: note: 'ThreadPool::enqueue' hands the callable to this worker
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'div_' writes 'frame' in place here
  frame.div_(255);
  scaled.get();
}

void NegativeClonedArgument(ThreadPool &pool) {
  auto bucket = torch::randn({1024});
  auto message = pool.enqueue(compress, bucket.clone(), int64_t{32});
  bucket.zero_();
  message.get();
}

void NegativeWaitedBeforeTheWrite(ThreadPool &pool) {
  auto bucket = torch::randn({1024});
  auto message = pool.enqueue(compress, bucket, int64_t{32});
  auto sent = message.get();
  bucket.zero_();
}

// CHECK-FIXES: auto message = pool.enqueue(compress, bucket.clone(), int64_t{32});
// CHECK-FIXES: auto scaled = pool.enqueue(Scale{}, frame.clone());
