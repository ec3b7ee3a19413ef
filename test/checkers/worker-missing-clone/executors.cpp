// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

// A function of this translation unit that hands its callable on to a
// thread is an executor: a lambda given to it runs on another thread.

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

void consume(const torch::Tensor &t);

template <typename F> void run_detached(F f) { std::thread(std::move(f)).detach(); }
void schedule(std::function<void()> f) { run_detached(std::move(f)); }
template <typename F> void run_now(F f) { f(); }
// Helpers that wait for the worker they start.
template <typename F> void run_and_join(F f) {
  std::thread t(f);
  t.join();
}
template <typename F> void run_async_blocking(F f) {
  std::async(std::launch::async, f);
}
template <typename F> void parallel_rows(int64_t n, F f) {
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      f(i);
  });
}
// A helper whose future outlives it.
template <typename F> std::future<void> launch(F f) {
  return std::async(std::launch::async, f);
}

// A thread pool: submit() queues the task, the workers the constructor
// starts pop it.
class Pool {
public:
  explicit Pool(int n) {
    for (int i = 0; i < n; ++i)
      workers_.emplace_back([this] { loop(); });
  }
  template <typename F> std::future<void> enqueue(F f) {
    auto task = std::make_shared<std::packaged_task<void()>>(std::move(f));
    std::future<void> done = task->get_future();
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push([task] { (*task)(); });
    return done;
  }
  void wait();

private:
  void loop() {
    while (true) {
      std::function<void()> task;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        task = std::move(tasks_.front());
        tasks_.pop();
      }
      task();
    }
  }
  std::mutex mutex_;
  std::queue<std::function<void()>> tasks_;
  std::vector<std::thread> workers_;
};

// A pool whose worker is a member function.
class Loop {
public:
  Loop() : thread_(&Loop::run, this) {}
  void post(std::function<void()> f) { pending_.push_back(std::move(f)); }
  // Runs on the caller's thread: no worker reads `later_`.
  void defer(std::function<void()> f) { later_.push_back(std::move(f)); }

private:
  void run() {
    for (auto &f : pending_)
      f();
  }
  std::vector<std::function<void()>> pending_;
  std::vector<std::function<void()>> later_;
  std::thread thread_;
};

// Positive: a helper that starts a thread.

void PositiveDetachedHelper(torch::Tensor x) {
  run_detached([&x] { x.mul_(2); });
  // CHECK-NOTES: :[[@LINE-1]]:18: warning: by-reference capture 'x' shares its storage with worker entry point 'run_detached' and the worker writes it in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-79]]:48: note: 'run_detached' hands the callable to this worker
  // CHECK-NOTES: :[[@LINE-3]]:25: note: 'mul_' writes 'x' in place here
  // CHECK-NOTES: :[[@LINE+1]]:11: note: the spawner uses 'x' here, before any join
  consume(x);
}

// Positive: through two executors.

void PositiveNestedExecutor(torch::Tensor x) {
  schedule([x] { consume(x); });
  // CHECK-NOTES: :[[@LINE-1]]:13: warning: by-value capture 'x' shares its storage with worker entry point 'schedule' and the spawner writes it in place before the worker is joined
  // CHECK-NOTES: :[[@LINE-90]]:48: note: 'schedule' hands the callable to this worker
  // CHECK-NOTES: :[[@LINE+2]]:5: note: 'add_' writes 'x' in place here
  // CHECK-FIXES: schedule([x = x.clone()] { consume(x); });
  x.add_(1);
}

// Positive: a thread pool's queue.

void PositivePoolQueue(Pool &pool, torch::Tensor staging) {
  auto done = pool.enqueue([staging] { consume(staging); });
  // CHECK-NOTES: :[[@LINE-1]]:29: warning: by-value capture 'staging' shares its storage with worker entry point 'Pool::enqueue' and the spawner writes it in place before the worker is joined
  // CHECK-NOTES: :[[@LINE-73]]:7: note: 'Pool::enqueue' hands the callable to this worker
  // CHECK-NOTES: :[[@LINE+2]]:11: note: 'fill_' writes 'staging' in place here
  // CHECK-FIXES: auto done = pool.enqueue([staging = staging.clone()] { consume(staging); });
  staging.fill_(0);
  done.wait();
}

void PositiveMemberFunctionWorker(Loop &loop, torch::Tensor grads) {
  loop.post([&grads] { grads.zero_(); });
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: by-reference capture 'grads' shares its storage with worker entry point 'Loop::post' and the worker writes it in place while the spawner still uses it
  // CHECK-NOTES: :[[@LINE-52]]:12: note: 'Loop::post' hands the callable to this worker
  // CHECK-NOTES: :[[@LINE-3]]:30: note: 'zero_' writes 'grads' in place here
  // CHECK-NOTES: :[[@LINE+1]]:11: note: the spawner uses 'grads' here, before any join
  consume(grads);
}

// Positive: a future returned by the helper.

void PositiveReturnedFuture(torch::Tensor x) {
  auto done = launch([x] { consume(x); });
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: by-value capture 'x' shares its storage with worker entry point 'launch' and the spawner writes it in place before the worker is joined
  // CHECK-NOTES: :[[@LINE-103]]:10: note: 'launch' hands the callable to this worker
  // CHECK-NOTES: :[[@LINE+2]]:5: note: 'zero_' writes 'x' in place here
  // CHECK-FIXES: auto done = launch([x = x.clone()] { consume(x); });
  x.zero_();
  done.get();
}

// Negative: helpers that wait for the worker they start.

void NegativeHelpersWait(torch::Tensor x, torch::Tensor out) {
  run_and_join([&x] { x.mul_(2); });
  consume(x);
  run_async_blocking([&x] { x.mul_(2); });
  consume(x);
  parallel_rows(4, [&](int64_t i) { out.select(0, i).zero_(); });
  consume(out);
}

// Negative: the pool's future is waited for before the write.

void NegativePoolWaited(Pool &pool, torch::Tensor staging) {
  auto done = pool.enqueue([staging] { consume(staging); });
  done.wait();
  staging.fill_(0);
}

// Negative: a helper that runs the callable on the caller's thread, and a
// queue no worker reads.

void NegativeRunsInline(torch::Tensor x) {
  run_now([&x] { x.mul_(2); });
  consume(x);
}

void NegativeQueueWithoutWorker(Loop &loop, torch::Tensor x) {
  loop.defer([&x] { x.mul_(2); });
  consume(x);
}

// Negative: the worker is handed a clone.

void NegativePoolClone(Pool &pool, torch::Tensor staging) {
  auto done = pool.enqueue([copy = staging.clone()] { consume(copy); });
  staging.fill_(0);
  done.wait();
}
