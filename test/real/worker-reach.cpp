// Ground truth for the ways a tensor reaches another thread (std::ref, a
// lambda's parameter, an executor, other chunks' parts), against Debian's
// real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %real_torch

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <functional>
#include <future>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

void consume(const torch::Tensor &t);
void fill(torch::Tensor &t) { t.fill_(1); }
void save(const std::vector<torch::Tensor> &tensors);

class Pool {
public:
  Pool() : worker_(&Pool::loop, this) {}
  void submit(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push(std::move(task));
  }
  void wait();

private:
  void loop() {
    while (!tasks_.empty()) {
      tasks_.front()();
      tasks_.pop();
    }
  }
  std::mutex mutex_;
  std::queue<std::function<void()>> tasks_;
  std::thread worker_;
};

void PositiveRef(torch::Tensor x) {
  std::thread t(fill, std::ref(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: by-reference argument 'x' shares its storage with worker entry point 'std::thread' and the worker writes it in place while the spawner still uses it [libtorch-worker-missing-clone]
  consume(x);
  t.join();
}

void PositiveParametersWhileStepping(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  auto params = model->parameters();
  auto writer = std::async(std::launch::async, save, std::cref(params));
  // CHECK-MESSAGES: :[[@LINE-1]]:54: warning: by-reference argument 'params' holds tensors that share their storage with worker entry point 'std::async' and the spawner writes them in place before the worker is joined
  opt.step();
  writer.get();
}

void PositiveLambdaParameter(torch::Tensor frame) {
  std::thread t([](torch::Tensor f) { f.div_(255); }, frame);
  // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: argument 'frame' shares its storage with worker entry point 'std::thread' and the worker writes it in place while the spawner still uses it
  // CHECK-FIXES: std::thread t([](torch::Tensor f) { f.div_(255); }, frame.clone());
  consume(frame);
  t.join();
}

void PositivePool(Pool &pool, torch::Tensor staging) {
  pool.submit([staging] { consume(staging); });
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: by-value capture 'staging' shares its storage with worker entry point 'Pool::submit' and the spawner writes it in place before the worker is joined
  // CHECK-FIXES: pool.submit([staging = staging.clone()] { consume(staging); });
  staging.fill_(0);
  pool.wait();
}

void PositiveGlobalMax(torch::Tensor out) {
  at::parallel_for(0, out.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.select(0, i).div_(out.max());
    // CHECK-MESSAGES: :[[@LINE-3]]:40: warning: by-reference capture 'out' shares its storage with worker entry point 'at::parallel_for' and each chunk writes it in place while other chunks read it
  });
}

void NegativeOwnRow(torch::Tensor out, torch::Tensor in) {
  at::parallel_for(0, out.size(0), 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.select(0, i).div_(out.select(0, i).sum() + in.max() + out.size(1));
  });
}

void NegativePoolWaited(Pool &pool, torch::Tensor staging) {
  pool.submit([staging] { consume(staging); });
  pool.wait();
  staging.fill_(0);
}
