// CASE: a policy-gradient trainer hands a copy of its Rollout struct (a
//       struct of tensors) to a logging worker as a std::packaged_task, then
//       normalises the rollout's rewards in place for the loss while the
//       task is still queued
// SOURCE: https://www.codegenes.net/blog/pytorch-sharing-tensors-between-different-thread
// KIND: bug
// HARM: the logged episode return is computed from the normalised rewards,
//       not from the rewards the environment paid
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <future>
#include <iostream>
#include <mutex>
#include <thread>

struct Rollout {
  torch::Tensor observations;
  torch::Tensor rewards;
};

// A single-threaded executor, as used for metrics and checkpoint uploads.
class TaskWorker {
 public:
  TaskWorker() : thread_([this] { run(); }) {}

  ~TaskWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  std::future<double> submit(std::packaged_task<double()> task) {
    auto result = task.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
    return result;
  }

 private:
  void run() {
    for (;;) {
      std::packaged_task<double()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
        if (tasks_.empty()) {
          return;
        }
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<double()>> tasks_;
  bool stop_ = false;
  std::thread thread_;
};

static double discounted_return(const torch::Tensor& rewards, double gamma) {
  double g = 0.0;
  auto r = rewards.accessor<float, 1>();
  for (int64_t t = r.size(0) - 1; t >= 0; --t) {
    g = r[t] + gamma * g;
  }
  return g;
}

int main() {
  TaskWorker logger;
  Rollout rollout{torch::randn({5, 4}),
                  torch::tensor({1.0f, 0.0f, 2.0f, 0.0f, 3.0f})};
  const double expected = discounted_return(rollout.rewards, 0.9);

  std::packaged_task<double()> report([rollout] {  // BUG(libtorch-worker-missing-clone)
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // waits behind other uploads
    return discounted_return(rollout.rewards, 0.9);
  });
  auto logged = logger.submit(std::move(report));

  // Normalise the rewards for the policy-gradient loss.
  auto& r = rollout.rewards;
  r.sub_(r.mean()).div_(r.std() + 1e-8);  // BUG(libtorch-worker-missing-clone)

  double got = logged.get();
  std::cout << "logged return " << got << " (expected " << expected << ")\n";
  if (std::abs(got - expected) > 1e-4) {
    std::cout << "HARM: the logged return was computed from normalised rewards\n";
  }
  return 0;
}
