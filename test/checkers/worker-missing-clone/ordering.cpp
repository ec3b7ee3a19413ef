// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>

#include <future>
#include <thread>
#include <vector>

void consume(torch::Tensor t);
void normalize_inplace(torch::Tensor x) { x.div_(255); }

// Positive: a write earlier in the loop body that spawns runs while the
// previous iteration's worker still reads the tensor.

void PositiveWriteEarlierInSpawnLoop(torch::Tensor buf) {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    buf.add_(1);
    threads.emplace_back(consume, buf);
    // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: argument 'buf' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
    // CHECK-FIXES: threads.emplace_back(consume, buf.clone());
  }
  for (auto &t : threads)
    t.join();
}

// Positive: the previous iteration's worker writes the tensor the spawner
// reads earlier in the loop body.

void PositiveUseEarlierInSpawnLoop(torch::Tensor buf) {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    consume(buf);
    threads.emplace_back(normalize_inplace, buf);
    // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: argument 'buf' shares its storage with worker entry point 'std::thread' and the worker writes it in place while the spawner still uses it [libtorch-worker-missing-clone]
    // CHECK-FIXES: threads.emplace_back(normalize_inplace, buf.clone());
  }
  for (auto &t : threads)
    t.join();
}

// Negative: each iteration joins its worker before the write.

void NegativeJoinInLoopBeforeWrite(torch::Tensor buf) {
  for (int i = 0; i < 4; ++i) {
    std::thread t(consume, buf);
    t.join();
    buf.add_(1);
  }
}

// Negative: the write comes before the loop that spawns.

void NegativeWriteBeforeSpawnLoop(torch::Tensor buf) {
  std::vector<std::thread> threads;
  buf.add_(1);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back(consume, buf);
  for (auto &t : threads)
    t.join();
}

// Negative: the worker is joined in the loop body, before the next write.

void NegativeJoinInLoopBodyBeforeNextWrite(torch::Tensor buf) {
  for (int i = 0; i < 4; ++i) {
    buf.add_(1);
    std::thread t(consume, buf);
    t.join();
  }
}

// Negative: a fresh tensor each iteration.

void NegativeFreshTensorPerIteration() {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    auto x = torch::zeros({4});
    x.add_(1);
    threads.emplace_back(consume, x);
  }
  for (auto &t : threads)
    t.join();
}

// Negative: the join loop may run no iteration in the CFG, but it joins every
// worker before the next round's write.

void NegativeJoinLoopInOuterLoop(torch::Tensor buf, bool running) {
  std::vector<std::thread> threads;
  while (running) {
    buf.add_(1);
    for (int i = 0; i < 4; ++i)
      threads.emplace_back(consume, buf);
    for (auto &t : threads)
      t.join();
    threads.clear();
  }
}

// Negative: the future of std::async waits for its worker when destroyed at
// the end of each iteration.

void NegativeAsyncFuturePerIteration(torch::Tensor buf) {
  for (int i = 0; i < 4; ++i) {
    buf.add_(1);
    auto done = std::async(std::launch::async, consume, buf);
  }
}

// Negative: each iteration writes a tensor of its own after rebinding.

void NegativeReassignedEachIteration(torch::Tensor buf) {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    buf = torch::zeros({4});
    buf.add_(1);
    threads.emplace_back(consume, buf);
  }
  for (auto &t : threads)
    t.join();
}

// Negative: the spawn and the write are on different branches.

void NegativeSpawnAndWriteOnOtherBranches(torch::Tensor buf, bool flag) {
  if (flag) {
    std::thread t(consume, buf);
    t.detach();
  } else {
    buf.add_(1);
  }
}
