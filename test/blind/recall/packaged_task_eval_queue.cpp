// CASE: an evaluation queue of std::packaged_task objects, each capturing the
//       current batch tensor; the producer refills that batch buffer with
//       copy_ for the next task before the evaluator thread has run the first
// SOURCE: https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
//         (a weight/input tensor written with an in-place op in one thread
//         while another thread reads it is a race; users must lock or copy)
// KIND: bug
// HARM: both queued evaluations score the second batch
#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

class EvalQueue {
 public:
  void push(std::packaged_task<float()> task) {
    std::lock_guard<std::mutex> lock(m_);
    tasks_.push_back(std::move(task));
  }
  // Drains the queue on a dedicated thread once the producer closes it.
  void start() {
    worker_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [this] { return closed_; });
      while (!tasks_.empty()) {
        auto task = std::move(tasks_.front());
        tasks_.pop_front();
        lock.unlock();
        task();
        lock.lock();
      }
    });
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(m_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  ~EvalQueue() {
    if (worker_.joinable()) worker_.join();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<float()>> tasks_;
  bool closed_ = false;
  std::thread worker_;
};

int main() {
  torch::manual_seed(2);
  torch::nn::Linear scorer(8, 1);
  auto batch_a = torch::randn({16, 8});
  auto batch_b = torch::randn({16, 8}) * 4.0;
  torch::NoGradGuard no_grad;
  const float expected_a = scorer(batch_a).mean().item<float>();
  const float expected_b = scorer(batch_b).mean().item<float>();

  EvalQueue queue;
  queue.start();
  torch::Tensor batch = torch::empty({16, 8});  // reused input buffer

  batch.copy_(batch_a);
  std::packaged_task<float()> task_a([batch, scorer]() mutable {  // BUG(libtorch-worker-missing-clone)
    torch::NoGradGuard g;
    return scorer->forward(batch).mean().item<float>();
  });
  auto score_a = task_a.get_future();
  queue.push(std::move(task_a));  // BUG(libtorch-worker-missing-clone)

  batch.copy_(batch_b);  // BUG(libtorch-worker-missing-clone)
  std::packaged_task<float()> task_b([batch, scorer]() mutable {
    torch::NoGradGuard g;
    return scorer->forward(batch).mean().item<float>();
  });
  auto score_b = task_b.get_future();
  queue.push(std::move(task_b));
  queue.close();

  const float a = score_a.get();
  const float b = score_b.get();
  std::printf("score a %.5f (expected %.5f), score b %.5f (expected %.5f)\n", a, expected_a, b,
              expected_b);
  if (a != expected_a) {
    std::printf("HARM: the first evaluation scored the refilled batch (%.5f != %.5f)\n", a,
                expected_a);
  }
  return 0;
}
