// A method that refills a member in place and returns its handle hands out
// the object's own buffer: a worker given one result reads the next refill
// (Note [A member handed out and refilled]).
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>

#include <functional>
#include <future>
#include <thread>
#include <vector>

class Reader {
public:
  Reader() : staging_(torch::empty({4})), count_(torch::zeros({1})) {}
  const torch::Tensor &read(int i) {
    staging_.copy_(torch::rand({4}));
    return staging_;
  }
  torch::Tensor next() {
    staging_.mul_(0.5);
    return staging_;
  }
  torch::Tensor readCopy(int i) {
    staging_.copy_(torch::rand({4}));
    return staging_.clone();
  }
  torch::Tensor counted() {
    count_.add_(1);
    return staging_;
  }

private:
  torch::Tensor staging_;
  torch::Tensor count_;
};

class Pool {
public:
  void submit(std::function<void()> job) { jobs_.push_back(std::move(job)); }
  void run() {
    std::thread worker([this] {
      for (auto &job : jobs_)
        job();
    });
    worker.join();
  }

private:
  std::vector<std::function<void()>> jobs_;
};

float energy(const torch::Tensor &t);

void PositiveJobsCaptureTheHandedOutBuffer() {
  Pool pool;
  Reader reader;
  std::vector<float> out(4);
  for (int i = 0; i < 4; ++i) {
    torch::Tensor chunk = reader.read(i);
    pool.submit([chunk, i, &out] { out[i] = energy(chunk); });
    // CHECK-FIXES: pool.submit([chunk = chunk.clone(), i, &out] { out[i] = energy(chunk); });
    // CHECK-NOTES: :[[@LINE-2]]:18: warning: by-value capture 'chunk' shares its storage with worker entry point 'Pool::submit' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE-22]]:17: note: 'Pool::submit' hands the callable to this worker
    // CHECK-NOTES: :[[@LINE-5]]:34: note: 'read' refills member 'staging_', which 'chunk' holds, in place here
    // CHECK-NOTES: :[[@LINE-49]]:14: note: 'staging_' is written in place here
  }
  pool.run();
}

void PositiveThreadsGivenTheHandedOutBuffer() {
  Reader reader;
  std::vector<std::thread> workers;
  torch::Tensor frame;
  for (int i = 0; i < 4; ++i) {
    frame = reader.next();
    workers.emplace_back(energy, frame);
    // CHECK-FIXES: workers.emplace_back(energy, frame.clone());
    // CHECK-NOTES: :[[@LINE-2]]:34: warning: argument 'frame' shares its storage with worker entry point 'std::thread'
    // CHECK-NOTES: :[[@LINE-4]]:20: note: 'next' refills member 'staging_', which 'frame' holds, in place here
    // CHECK-NOTES: :[[@LINE-60]]:14: note: 'staging_' is written in place here
  }
  for (auto &w : workers)
    w.join();
}

void PositiveAsyncThenRefill() {
  Reader reader;
  auto chunk = reader.read(0);
  auto f = std::async(std::launch::async, energy, chunk);
  // CHECK-FIXES: auto f = std::async(std::launch::async, energy, chunk.clone());
  // CHECK-NOTES: :[[@LINE-2]]:51: warning: argument 'chunk' shares its storage with worker entry point 'std::async'
  // CHECK-NOTES: :[[@LINE+2]]:10: note: 'read' refills member 'staging_', which 'chunk' holds, in place here
  // CHECK-NOTES: :[[@LINE-77]]:14: note: 'staging_' is written in place here
  reader.read(1);
  f.get();
}

// Near-misses.

void NegativeCloneAtTheCapture() {
  Pool pool;
  Reader reader;
  std::vector<float> out(4);
  for (int i = 0; i < 4; ++i) {
    torch::Tensor chunk = reader.read(i);
    pool.submit([chunk = chunk.clone(), i, &out] { out[i] = energy(chunk); });
  }
  pool.run();
}

void NegativeMethodReturnsACopy() {
  Pool pool;
  Reader reader;
  std::vector<float> out(4);
  for (int i = 0; i < 4; ++i) {
    torch::Tensor chunk = reader.readCopy(i);
    pool.submit([chunk, i, &out] { out[i] = energy(chunk); });
  }
  pool.run();
}

void NegativeJoinedBeforeTheNextRead() {
  Reader reader;
  for (int i = 0; i < 4; ++i) {
    torch::Tensor chunk = reader.read(i);
    std::thread worker(energy, chunk);
    worker.join();
  }
}

void NegativeOneReaderPerItem() {
  Pool pool;
  std::vector<float> out(4);
  for (int i = 0; i < 4; ++i) {
    Reader reader;
    torch::Tensor chunk = reader.read(i);
    pool.submit([chunk, i, &out] { out[i] = energy(chunk); });
  }
  pool.run();
}

void NegativeAnotherMemberWritten() {
  Reader reader;
  auto view = reader.counted();
  auto f = std::async(std::launch::async, energy, view);
  reader.counted();
  f.get();
}
