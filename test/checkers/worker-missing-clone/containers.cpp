// Containers and structs of tensors handed to a worker: copying them copies
// the handles, not the storage.
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <future>
#include <thread>
#include <vector>

void consume(const torch::Tensor &t);
void consume_all(const std::vector<torch::Tensor> &v);

void scale_first(std::vector<torch::Tensor> v) { v[0].add_(1); }
void halve_all(std::vector<torch::Tensor> v) {
  for (auto &t : v)
    t.div_(2);
}
void read_all(std::vector<torch::Tensor> v) {
  for (auto &t : v)
    consume(t);
}

struct Batch {
  torch::Tensor images, labels;
};
void consume_batch(const Batch &b);
void normalize(Batch b) { b.images.div_(255); }

// Positive: a vector of tensors.

void PositiveVectorElementWritten(std::vector<torch::Tensor> batch) {
  std::thread t(scale_first, batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: argument 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the worker writes them in place while the spawner still uses them [libtorch-worker-missing-clone]
  consume_all(batch);
  t.join();
}

void PositiveVectorLoopWrites(std::vector<torch::Tensor> batch) {
  std::thread t(halve_all, batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: argument 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the worker writes them in place while the spawner still uses them
  consume(batch[0]);
  t.join();
}

void PositiveVectorCapture(std::vector<torch::Tensor> batch) {
  std::thread t([batch] {
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: by-value capture 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the worker writes them in place while the spawner still uses them
    for (auto &x : batch)
      x.div_(2);
  });
  consume(batch[1]);
  t.join();
}

void PositiveVectorSpawnerWrites(std::vector<torch::Tensor> batch) {
  auto fut = std::async(std::launch::async, [&batch] { consume_all(batch); });
  // CHECK-MESSAGES: :[[@LINE-1]]:47: warning: by-reference capture 'batch' holds tensors that share their storage with worker entry point 'std::async' and the spawner writes them in place before the worker is joined
  batch[0].mul_(2);
  fut.get();
}

// Positive: a struct of tensors.

void PositiveStructCaptureSpawnerWrites() {
  Batch b{torch::rand({4}), torch::rand({4})};
  std::thread t([&b] { consume(b.images); });
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: by-reference capture 'b' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined
  b.images.div_(255);
  t.join();
}

void PositiveStructCaptureWorkerWrites(Batch b) {
  auto fut = std::async(std::launch::async, [b] { b.images.div_(255); });
  // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: by-value capture 'b' holds tensors that share their storage with worker entry point 'std::async' and the worker writes them in place while the spawner still uses them
  consume_batch(b);
  fut.get();
}

void PositiveStructArgument(Batch b) {
  std::thread t(normalize, b);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: argument 'b' holds tensors that share their storage with worker entry point 'std::thread' and the worker writes them in place while the spawner still uses them
  consume(b.images);
  t.join();
}

// Negative: the worker gets a deep copy.

void NegativeVectorDeepCopy(std::vector<torch::Tensor> batch) {
  std::vector<torch::Tensor> copy;
  for (const auto &x : batch)
    copy.push_back(x.clone());
  std::thread t(halve_all, copy);
  consume_all(batch);
  t.join();
}

void NegativeStructDeepCopy(Batch b) {
  Batch copy{b.images.clone(), b.labels.clone()};
  std::thread t(normalize, copy);
  consume_batch(b);
  t.join();
}

// Negative: read-only sharing.

void NegativeVectorReadOnly(std::vector<torch::Tensor> batch) {
  std::thread t(read_all, batch);
  consume_all(batch);
  t.join();
}

void NegativeStructReadOnly(Batch b) {
  std::thread t([&b] { consume(b.images); });
  consume(b.images);
  t.join();
}

// Negative: the worker writes one member, the spawner reads another.

void NegativeStructOtherMember(Batch b) {
  std::thread t([&b] { b.images.div_(255); });
  consume(b.labels);
  t.join();
}

// Negative: the worker writes a buffer it owns.

void NegativeWorkerOwnsBuffer(Batch b) {
  std::thread t([b] {
    auto local = b.images.clone();
    local.div_(255);
    consume(local);
  });
  consume(b.images);
  t.join();
}

// Negative: each worker fills its own slot; the spawner reads after joining.

void NegativeWorkersFillOwnSlots(const torch::Tensor &x) {
  std::vector<torch::Tensor> outs(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&outs, &x, i] { outs[i] = x.clone(); });
  for (auto &t : threads)
    t.join();
  consume_all(outs);
}

// Negative: joined before the spawner writes.

void NegativeStructJoined(Batch b) {
  std::thread t([&b] { consume(b.images); });
  t.join();
  b.images.div_(255);
}

// Negative: parallel_for chunks each write their own elements.

void NegativeParallelForElements(std::vector<torch::Tensor> outs) {
  at::parallel_for(0, 4, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      outs[i].zero_();
  });
}

// Positive: every chunk writes every element.

void PositiveParallelForAllElements(std::vector<torch::Tensor> outs) {
  at::parallel_for(0, 4, 1, [&](int64_t begin, int64_t end) {
    for (auto &out : outs)
      out.zero_();
    // CHECK-MESSAGES: :[[@LINE-3]]:30: warning: by-reference capture 'outs' holds tensors that share their storage with worker entry point 'at::parallel_for' and every chunk writes them in place, not only its [begin, end) part
  });
}
