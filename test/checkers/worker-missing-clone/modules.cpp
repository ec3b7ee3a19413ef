// A ModuleHolder copied into a worker shares its module: it wraps a
// shared_ptr.
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>

#include <future>
#include <memory>
#include <mutex>
#include <thread>

void consume(const torch::Tensor &t);

void train_inplace(torch::nn::Linear local) {
  for (auto &p : local->parameters())
    p.add_(1);
}
void evaluate(torch::nn::Linear local) { consume(local->forward(torch::ones({4}))); }

// Positive: the worker updates a copy of the holder in place.

void PositiveCopyUpdatedInWorker(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  std::thread t([&] {
    auto local = global;
    // CHECK-MESSAGES: :[[@LINE-2]]:18: warning: by-reference capture 'global' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it [libtorch-worker-missing-clone]
    // CHECK-FIXES: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
    for (auto &p : local->parameters())
      p.add_(0.1);
  });
  consume(global->forward(x));
  t.join();
}

void PositiveOptimizerInWorker(torch::nn::Linear global) {
  auto fut = std::async(std::launch::async, [global] {
    // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: by-value capture 'global' shares its module with worker entry point 'std::async' and the worker updates its parameters in place while the spawner still uses it
    torch::optim::SGD opt(global->parameters(), torch::optim::SGDOptions(0.1));
    opt.step();
  });
  consume(global->forward(torch::ones({4})));
  fut.get();
}

void PositiveBoundFunction(torch::nn::Linear global) {
  std::thread t(train_inplace, global);
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: argument 'global' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it
  evaluate(global);
  t.join();
}

void PositiveSpawnerUpdates(torch::nn::Linear global) {
  std::thread t(evaluate, global);
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: argument 'global' shares its module with worker entry point 'std::thread' and the spawner updates its parameters in place before the worker is joined
  torch::optim::SGD opt(global->parameters(), torch::optim::SGDOptions(0.1));
  opt.step();
  t.join();
}

void PositiveTwoWorkers() {
  torch::nn::Linear global(4, 4);
  std::thread a([&global] {
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: by-reference capture 'global' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it
    auto local = global;
    // CHECK-FIXES: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
    torch::optim::SGD opt(local->parameters(), torch::optim::SGDOptions(0.1));
    opt.step();
  });
  std::thread b([&global] { consume(global->forward(torch::ones({4}))); });
  a.join();
  b.join();
}

// Negative: the worker's copy is a deep clone.

void NegativeDeepClone(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  std::thread t([&] {
    torch::nn::Linear local(
        std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
    for (auto &p : local->parameters())
      p.add_(0.1);
  });
  consume(global->forward(x));
  t.join();
}

// Negative: read-only sharing, a join first, or a lock around both sides.

void NegativeReadOnly(torch::nn::Linear global) {
  std::thread t(evaluate, global);
  evaluate(global);
  t.join();
}

void NegativeJoinedFirst(torch::nn::Linear global) {
  std::thread t(train_inplace, global);
  t.join();
  evaluate(global);
}

void NegativeLocked(torch::nn::Linear global) {
  std::mutex m;
  std::thread t([&] {
    std::lock_guard<std::mutex> lock(m);
    for (auto &p : global->parameters())
      p.add_(0.1);
  });
  {
    std::lock_guard<std::mutex> lock(m);
    torch::optim::SGD opt(global->parameters(), torch::optim::SGDOptions(0.1));
    opt.step();
  }
  t.join();
}
