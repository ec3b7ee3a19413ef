// Note [Workers of a loop]: a spawn that runs again before its worker is
// joined starts several workers on one value.
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>

#include <mutex>
#include <thread>
#include <vector>

std::mutex global_lock;

// Each asynchronous worker steps the model it is handed, without a lock.
void step_locally(torch::nn::Linear model, int steps) {
  auto params = model->parameters();
  for (int k = 0; k < steps; ++k) {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i)
      params[i].sub_(0.01);
  }
}

// The same update, made under a lock.
void step_under_lock(torch::nn::Linear model, int steps) {
  for (int k = 0; k < steps; ++k) {
    std::lock_guard<std::mutex> guard(global_lock);
    torch::NoGradGuard no_grad;
    for (auto &p : model->parameters())
      p.sub_(0.01);
  }
}

void accumulate(torch::Tensor total, int id) { total.add_(id); }
void read_only(torch::Tensor total, int id);

// Positive: four workers step one model.

void PositiveWorkersShareTheModel() {
  torch::nn::Linear global(4, 4);
  std::vector<std::thread> workers;
  for (int id = 0; id < 4; ++id)
    workers.emplace_back(step_locally, global, 10);
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: argument 'global' shares its module with worker entry point 'std::thread' and every worker the loop starts updates its parameters in place while the others use it [libtorch-worker-missing-clone]
  for (auto &w : workers)
    w.join();
}

// Positive: four workers add into one tensor.

void PositiveWorkersShareATensor() {
  auto total = torch::zeros({1});
  std::vector<std::thread> workers;
  for (int id = 0; id < 4; ++id)
    workers.emplace_back(accumulate, total, id);
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: argument 'total' shares its storage with worker entry point 'std::thread' and every worker the loop starts writes it in place while the others use it
  for (auto &w : workers)
    w.join();
}

// Negative: the updates are made under a lock.

void NegativeLockedUpdates() {
  torch::nn::Linear global(4, 4);
  std::vector<std::thread> workers;
  for (int id = 0; id < 4; ++id)
    workers.emplace_back(step_under_lock, global, 10);
  for (auto &w : workers)
    w.join();
}

// Negative: each iteration hands over a tensor of its own.

void NegativeFreshTensorPerWorker() {
  std::vector<std::thread> workers;
  for (int id = 0; id < 4; ++id) {
    auto total = torch::zeros({1});
    workers.emplace_back(accumulate, total, id);
  }
  for (auto &w : workers)
    w.join();
}

// Negative: each worker is joined before the next one starts.

void NegativeJoinedEachIteration() {
  auto total = torch::zeros({1});
  for (int id = 0; id < 4; ++id) {
    std::thread worker(accumulate, total, id);
    worker.join();
  }
}

// Negative: the workers only read.

void NegativeReaders() {
  auto total = torch::zeros({1});
  std::vector<std::thread> workers;
  for (int id = 0; id < 4; ++id)
    workers.emplace_back(read_only, total, id);
  for (auto &w : workers)
    w.join();
}
