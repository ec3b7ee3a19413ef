// CASE: an inference server with a hand-written thread pool; each request is
//       submitted as a lambda capturing the shared input tensor, and the
//       request loop rescales that same buffer in place for the next request
// SOURCE: https://github.com/pytorch/pytorch/issues/23920 (libtorch inference
//         from several threads) and
//         https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: bug
// HARM: request 0 is answered with the output for request 1's input
#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

class ThreadPool {
 public:
  explicit ThreadPool(size_t n) {
    for (size_t i = 0; i < n; ++i) {
      workers_.emplace_back([this] {
        for (;;) {
          std::function<void()> job;
          {
            std::unique_lock<std::mutex> lock(m_);
            cv_.wait(lock, [this] { return (running_ && !jobs_.empty()) || stop_; });
            if (jobs_.empty()) return;
            job = std::move(jobs_.front());
            jobs_.pop();
          }
          job();
        }
      });
    }
  }
  template <class F>
  auto enqueue(F&& f) -> std::future<decltype(f())> {
    using R = decltype(f());
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(f));
    auto fut = task->get_future();
    {
      std::lock_guard<std::mutex> lock(m_);
      jobs_.emplace([task] { (*task)(); });
    }
    cv_.notify_one();
    return fut;
  }
  // Workers start pulling jobs once the server has finished its warm-up.
  void resume() {
    {
      std::lock_guard<std::mutex> lock(m_);
      running_ = true;
    }
    cv_.notify_all();
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
      running_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

 private:
  std::vector<std::thread> workers_;
  std::queue<std::function<void()>> jobs_;
  std::mutex m_;
  std::condition_variable cv_;
  bool running_ = false;
  bool stop_ = false;
};

int main() {
  torch::manual_seed(3);
  torch::nn::Sequential model(torch::nn::Linear(6, 6), torch::nn::ReLU(), torch::nn::Linear(6, 2));
  model->eval();
  ThreadPool pool(2);

  std::vector<torch::Tensor> raw = {torch::randn({1, 6}), torch::randn({1, 6})};
  torch::Tensor expected0;
  {
    torch::NoGradGuard g;
    expected0 = model->forward(raw[0] / 255.0);
  }

  torch::Tensor input = torch::empty({1, 6});  // one preallocated request buffer
  std::vector<std::future<torch::Tensor>> replies;
  for (size_t r = 0; r < raw.size(); ++r) {
    input.copy_(raw[r]);  // BUG(libtorch-worker-missing-clone)
    input.div_(255.0);    // BUG(libtorch-worker-missing-clone)
    replies.push_back(pool.enqueue([model, input]() mutable {  // BUG(libtorch-worker-missing-clone)
      torch::NoGradGuard g;
      return model->forward(input);
    }));
  }
  pool.resume();

  torch::Tensor reply0 = replies[0].get();
  replies[1].get();
  std::printf("reply 0: %s expected %s\n", torch::str(reply0).c_str(), torch::str(expected0).c_str());
  if (!torch::allclose(reply0, expected0)) {
    std::printf("HARM: request 0 was answered from request 1's input\n");
  }
  return 0;
}
