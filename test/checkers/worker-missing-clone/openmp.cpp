// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch -fopenmp
// Note [OpenMP loops]: the iterations of a `#pragma omp parallel for` loop
// race as the chunks of at::parallel_for do, with or without -fopenmp.

#include <torch/torch.h>

#include <mutex>
#include <vector>

void PositiveEveryIterationWritesTheWhole(torch::Tensor acc, torch::Tensor x, int64_t n) {
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i)
    acc.add_(x[i]);
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: 'add_' writes 'acc' in place in every iteration of an OpenMP parallel loop, not only the iteration's own part: the iterations race [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:3: note: the iterations of this loop run in parallel ('#pragma omp ... for')
}

void PositiveClausesAndABlock(torch::Tensor sums, const std::vector<torch::Tensor> &xs) {
  const int64_t n = static_cast<int64_t>(xs.size());
#pragma omp parallel for schedule(dynamic) num_threads(4)
  for (int64_t i = 0; i < n; ++i) {
    auto row = xs[i].sum(0);
    sums.mul_(0.5).add_(row);
    // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'mul_' writes 'sums' in place in every iteration of an OpenMP parallel loop, not only the iteration's own part: the iterations race
    // CHECK-NOTES: :[[@LINE-4]]:3: note: the iterations of this loop run in parallel ('#pragma omp ... for')
  }
}

// Each iteration writes its own row but reads the previous one.
void PositiveReadsAnotherIterationsPart(torch::Tensor u, int64_t n) {
  #pragma omp parallel for
  for (int64_t i = 1; i < n; ++i)
    u.select(0, i).add_(u.select(0, i - 1));
  // CHECK-NOTES: :[[@LINE-1]]:20: warning: 'add_' writes each iteration's own part of 'u' in place in an OpenMP parallel loop while other iterations read it: the iterations race
  // CHECK-NOTES: :[[@LINE-3]]:3: note: the iterations of this loop run in parallel ('#pragma omp ... for')
  // CHECK-NOTES: :[[@LINE-3]]:25: note: an iteration reads 'u' outside its own part here
}

class Smoother {
public:
  void PositiveMember(const torch::Tensor &x, int64_t n) {
#pragma omp parallel for
    for (int64_t i = 0; i < n; ++i)
      state_.mul_(0.9).add_(x[i]);
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'mul_' writes 'this->state_' in place in every iteration of an OpenMP parallel loop, not only the iteration's own part: the iterations race
    // CHECK-NOTES: :[[@LINE-3]]:5: note: the iterations of this loop run in parallel ('#pragma omp ... for')
  }

private:
  torch::Tensor state_ = torch::zeros({4});
};

// Each iteration writes only its own element or view.
void NegativePartitioned(torch::Tensor out, torch::Tensor x, std::vector<torch::Tensor> &outs,
                         int64_t n) {
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i)
    out[i].copy_(x[i] * 2);
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i)
    out.narrow(0, i, 1).mul_(3);
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i)
    outs[i].zero_();
}

// Tensors of the iteration itself.
void NegativeLocalTensors(torch::Tensor out, torch::Tensor x, int64_t n) {
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
    auto t = x[i].clone();
    t.mul_(2);
    out[i].copy_(t);
  }
}

// Serialised writes: a critical section, or a lock.
void NegativeSerialised(torch::Tensor acc, torch::Tensor x, int64_t n, std::mutex &m) {
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
#pragma omp critical
    acc.add_(x[i]);
  }
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
    std::lock_guard<std::mutex> lock(m);
    acc.add_(x[i]);
  }
}

// No pragma, or one that does not make the loop parallel.
void NegativeSerialLoops(torch::Tensor acc, torch::Tensor x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    acc.add_(x[i]);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i)
    acc.add_(x[i]);
}
