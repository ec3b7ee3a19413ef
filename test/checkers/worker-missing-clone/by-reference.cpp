// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

// std::ref and std::cref hand the worker the spawner's own object; the
// argument of a lambda's parameter is a copy of the spawner's handle.

#include <torch/torch.h>

#include <functional>
#include <future>
#include <thread>
#include <vector>

void consume(const torch::Tensor &t);
void fill(torch::Tensor &t) { t.fill_(1); }
void peek(const torch::Tensor &t) { consume(t); }
void save(const std::vector<torch::Tensor> &tensors);
void count(int &n) { ++n; }

struct Rollout {
  torch::Tensor obs;
  torch::Tensor rewards;
};

// Positive: the worker writes through std::ref while the spawner reads.

void PositiveRefWorkerWrites(torch::Tensor x) {
  std::thread t(fill, std::ref(x));
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: by-reference argument 'x' shares its storage with worker entry point 'std::thread' and the worker writes it in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-15]]:33: note: 'fill_' writes 'x' in place here
  // CHECK-NOTES: :[[@LINE+3]]:11: note: the spawner uses 'x' here, before any join
  // A clone cannot bind to the worker's `Tensor &`: no fix-it.
  // CHECK-FIXES: std::thread t(fill, std::ref(x));
  consume(x);
  t.join();
}

// Positive: the spawner writes what a std::cref argument still reads.

torch::Tensor PositiveCrefSpawnerWrites(torch::Tensor x) {
  auto fut = std::async(std::launch::async, peek, std::cref(x));
  // CHECK-NOTES: :[[@LINE-1]]:51: warning: by-reference argument 'x' shares its storage with worker entry point 'std::async' and the spawner writes it in place before the worker is joined
  // CHECK-NOTES: :[[@LINE+1]]:5: note: 'zero_' writes 'x' in place here
  x.zero_();
  fut.get();
  return x;
}

// Positive: a checkpoint writer holds the list of the module's parameters
// while the optimizer steps them.

void PositiveCheckpointWhileStepping(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  auto params = model->parameters();
  auto writer = std::async(std::launch::async, save, std::cref(params));
  // CHECK-NOTES: :[[@LINE-1]]:54: warning: by-reference argument 'params' holds tensors that share their storage with worker entry point 'std::async' and the spawner writes them in place before the worker is joined
  // CHECK-NOTES: :[[@LINE+1]]:7: note: 'step' updates the parameters of 'model' in place here
  opt.step();
  writer.get();
}

// Positive: a lambda's by-value parameter shares the argument's storage.

void PositiveLambdaParameterWritten(torch::Tensor frame) {
  std::thread t([](torch::Tensor f) { f.div_(255); }, frame);
  // CHECK-NOTES: :[[@LINE-1]]:55: warning: argument 'frame' shares its storage with worker entry point 'std::thread' and the worker writes it in place while the spawner still uses it
  // CHECK-NOTES: :[[@LINE-2]]:41: note: 'div_' writes 'frame' in place here
  // CHECK-NOTES: :[[@LINE+2]]:11: note: the spawner uses 'frame' here, before any join
  // CHECK-FIXES: std::thread t([](torch::Tensor f) { f.div_(255); }, frame.clone());
  consume(frame);
  t.join();
}

void PositiveLambdaStructParameter(Rollout buffer) {
  std::thread t([](Rollout r) { r.obs.mul_(2); }, buffer);
  // CHECK-NOTES: :[[@LINE-1]]:51: warning: argument 'buffer' holds tensors that share their storage with worker entry point 'std::thread' and the worker writes them in place while the spawner still uses them
  // CHECK-NOTES: :[[@LINE-2]]:39: note: 'mul_' writes 'buffer.obs' in place here
  // CHECK-NOTES: :[[@LINE+1]]:11: note: the spawner uses 'buffer' here, before any join
  consume(buffer.obs);
  t.join();
}

void PositiveSpawnerWritesLambdaArgument(Rollout buffer) {
  std::thread t([](Rollout r) { consume(r.rewards); }, buffer);
  // CHECK-NOTES: :[[@LINE-1]]:56: warning: argument 'buffer' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined
  // CHECK-NOTES: :[[@LINE+1]]:18: note: 'zero_' writes 'buffer.rewards' in place here
  buffer.rewards.zero_();
  t.join();
}

// Negative: joined before the spawner writes.

void NegativeRefJoinedFirst(torch::Tensor x) {
  std::thread t(peek, std::ref(x));
  t.join();
  x.zero_();
}

// Negative: std::ref of something that is not a tensor.

void NegativeRefCounter(torch::Tensor x) {
  int n = 0;
  std::thread t(count, std::ref(n));
  x.zero_();
  t.join();
}

// Negative: the worker reads through std::cref and the spawner waits for it
// before stepping.

void NegativeCheckpointBeforeStep(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  auto params = model->parameters();
  auto writer = std::async(std::launch::async, save, std::cref(params));
  writer.get();
  opt.step();
}

// Negative: the lambda's parameter is only read, or is handed a clone.

void NegativeLambdaParameterReadOnly(torch::Tensor frame) {
  std::thread t([](torch::Tensor f) { consume(f); }, frame);
  consume(frame);
  t.join();
}

void NegativeLambdaParameterClone(torch::Tensor frame) {
  std::thread t([](torch::Tensor f) { f.div_(255); }, frame.clone());
  consume(frame);
  t.join();
}
