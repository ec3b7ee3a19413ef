// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <future>
#include <mutex>
#include <thread>
#include <vector>

void consume(const torch::Tensor &t);
void normalize_inplace(torch::Tensor x) { x.div_(255); }
void read_only(torch::Tensor x) { consume(x); }

// Positive: the worker writes a tensor the spawner still uses.

void PositiveBoundFunctionWrites(torch::Tensor batch) {
  std::thread t(normalize_inplace, batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: argument 'batch' shares its storage with worker entry point 'std::thread' and the worker writes it in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-FIXES: std::thread t(normalize_inplace, batch.clone());
  consume(batch);
  t.join();
}

void PositiveReferenceCaptureTwoWriters(const torch::Tensor &x) {
  auto acc = torch::zeros({4});
  std::thread a([&acc, x] { acc.add_(x); });
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: by-reference capture 'acc' shares its storage with worker entry point 'std::thread' and the worker writes it in place while the spawner still uses it
  // The race is reported once, at the first writer; the second is the use.
  std::thread b([&acc, x] { acc.add_(x); });
  a.join();
  b.join();
}

// Positive: the spawner writes before the join.

torch::Tensor PositiveSpawnerWritesBeforeGet(torch::Tensor buf, int64_t n) {
  auto fut = std::async(std::launch::async,
                        [view = buf.narrow(0, 0, n)] { return view.sum(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: by-value capture 'view' shares its storage with worker entry point 'std::async' and the spawner writes it in place before the worker is joined
  // CHECK-FIXES: [view = buf.narrow(0, 0, n).clone()] { return view.sum(); });
  buf.div_(2);
  return fut.get();
}

void PositiveCaptureThenWrite(torch::Tensor x) {
  std::thread t([x] { consume(x); });
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: by-value capture 'x' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
  // CHECK-FIXES: std::thread t([x = x.clone()] { consume(x); });
  x.mul_(2);
  t.join();
}

// Positive: parallel_for chunks all write the whole tensor.

void PositiveParallelForUnpartitioned(torch::Tensor acc, torch::Tensor x) {
  at::parallel_for(0, 4, 1, [&](int64_t begin, int64_t end) {
    acc.add_(x);
    // CHECK-MESSAGES: :[[@LINE-2]]:30: warning: by-reference capture 'acc' shares its storage with worker entry point 'at::parallel_for' and every chunk writes it in place, not only its [begin, end) part
  });
}

// Negative: a clone is handed over.

void NegativeCloneArgument(torch::Tensor batch) {
  std::thread t(normalize_inplace, batch.clone());
  consume(batch);
  t.join();
}

void NegativeCloneCapture(torch::Tensor x) {
  std::thread t([y = x.clone()] { y.add_(1); });
  x.mul_(2);
  t.join();
}

// Negative: partitioned parallel_for writes.

void NegativeParallelForPartitioned(torch::Tensor out, torch::Tensor x) {
  at::parallel_for(0, 4, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.select(0, i).copy_(x.select(0, i));
  });
}

// Negative: ordered by a mutex.

void NegativeMutex(torch::Tensor acc, torch::Tensor x) {
  std::mutex m;
  std::thread t([&] {
    std::lock_guard<std::mutex> lock(m);
    acc.add_(x);
  });
  {
    std::lock_guard<std::mutex> lock(m);
    acc.mul_(2);
  }
  t.join();
}

// Negative: joined before the spawner's write.

void NegativeJoinBeforeWrite(torch::Tensor x) {
  std::thread t([x] { consume(x); });
  t.join();
  x.mul_(2);
}

torch::Tensor NegativeGetBeforeWrite(torch::Tensor buf) {
  auto fut = std::async(std::launch::async, [buf] { return buf.sum(); });
  auto s = fut.get();
  buf.div_(2);
  return s;
}

// Negative: read-only sharing.

void NegativeReadOnly(torch::Tensor batch) {
  std::thread t(read_only, batch);
  consume(batch);
  t.join();
}
