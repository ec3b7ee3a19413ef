// torch::jit::fork is in the default list of worker entry points.
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/jit.h>
#include <torch/torch.h>

void consume(const torch::Tensor &t);
torch::Tensor scale_inplace(torch::Tensor x) { return x.mul_(2); }

// Positive: the forked task writes a tensor the caller still uses.

void PositiveForkBoundFunction(torch::Tensor batch) {
  auto fut = torch::jit::fork(scale_inplace, batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: argument 'batch' shares its storage with worker entry point 'torch::jit::fork' and the worker writes it in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-FIXES: auto fut = torch::jit::fork(scale_inplace, batch.clone());
  consume(batch);
  fut->wait();
}

void PositiveForkSpawnerWrites(torch::Tensor x) {
  auto fut = torch::jit::fork([x] { return x.sum(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: by-value capture 'x' shares its storage with worker entry point 'torch::jit::fork' and the spawner writes it in place before the worker is joined
  // CHECK-FIXES: auto fut = torch::jit::fork([x = x.clone()] { return x.sum(); });
  x.add_(1);
  fut->wait();
}

// Negative: a clone is forked, or the future is waited for first.

void NegativeForkClone(torch::Tensor batch) {
  auto fut = torch::jit::fork(scale_inplace, batch.clone());
  consume(batch);
  fut->wait();
}

void NegativeForkWaitBeforeWrite(torch::Tensor x) {
  auto fut = torch::jit::fork([x] { return x.sum(); });
  fut->wait();
  x.add_(1);
}
