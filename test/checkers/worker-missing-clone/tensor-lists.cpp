// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Note [Lists that refer to their tensors]: an at::TensorList refers to the
// handles of the vector it was made from, and a _foreach_ operator writes
// every tensor of its first list in place.

#include <torch/torch.h>

#include <future>
#include <thread>
#include <vector>

double norm_of(at::TensorList grads);

// The worker reads the gradients the spawner unscales in place.
void PositiveForeachAfterCapture(std::vector<torch::Tensor> params) {
  std::vector<torch::Tensor> grads;
  for (auto &p : params)
    grads.push_back(p.grad());
  auto report = std::async(std::launch::async, [grads] { return norm_of(grads); });
  // CHECK-NOTES: :[[@LINE-1]]:49: warning: by-value capture 'grads' holds tensors that share their storage with worker entry point 'std::async' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:3: note: '_foreach_mul_' writes a tensor of 'grads' in place here
  torch::_foreach_mul_(grads, 1.0 / 1024);
  report.get();
}

// A TensorList handed to a thread by the spawner.
void PositiveListArgument(std::vector<torch::Tensor> buffers) {
  std::vector<torch::Tensor> staged = {torch::ones({4}), torch::ones({4})};
  at::TensorList view = staged;
  std::thread reader(norm_of, view);
  // CHECK-NOTES: :[[@LINE-1]]:31: warning: argument 'view' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:3: note: '_foreach_zero_' writes a tensor of 'staged' in place here
  torch::_foreach_zero_(staged);
  reader.join();
}

// A helper that returns a future over its TensorList argument.
std::future<double> monitor(at::TensorList grads) {
  return std::async(std::launch::async, [grads] { return norm_of(grads); });
}

void PositiveThroughHelper() {
  std::vector<torch::Tensor> grads = {torch::ones({3}), torch::ones({3})};
  auto report = monitor(grads);
  // CHECK-NOTES: :[[@LINE-1]]:25: warning: argument 'grads' holds tensors that share their storage with worker entry point 'std::async' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-7]]:10: note: 'monitor' starts this worker with them and returns without joining it
  // CHECK-NOTES: :[[@LINE+1]]:3: note: '_foreach_mul_' writes a tensor of 'grads' in place here
  torch::_foreach_mul_(grads, 0.5);
  report.get();
}

// The future is waited for before the write.
void NegativeWaitedFirst() {
  std::vector<torch::Tensor> grads = {torch::ones({3}), torch::ones({3})};
  auto report = monitor(grads);
  report.get();
  torch::_foreach_mul_(grads, 0.5);
}

// The worker is given clones.
void NegativeClones() {
  std::vector<torch::Tensor> grads = {torch::ones({3}), torch::ones({3})};
  std::vector<torch::Tensor> copies;
  for (const auto &g : grads)
    copies.push_back(g.clone());
  auto report = std::async(std::launch::async, [copies] { return norm_of(copies); });
  torch::_foreach_mul_(grads, 0.5);
  report.get();
}

// Only the other list of _foreach_add_ is read, not written.
void NegativeReadOnlyOperand() {
  std::vector<torch::Tensor> steps = {torch::ones({3}), torch::ones({3})};
  std::vector<torch::Tensor> weights = {torch::ones({3}), torch::ones({3})};
  auto report = std::async(std::launch::async, [steps] { return norm_of(steps); });
  torch::_foreach_add_(weights, steps);
  report.get();
}
