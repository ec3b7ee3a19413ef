// Ground truth for Note [POSIX threads] and Note [Records that point to
// tensors] on the real pthread_create and std::vector.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %real_torch

#include <torch/torch.h>

#include <pthread.h>

#include <vector>

struct MeterJob {
  const torch::Tensor *block = nullptr;
  int64_t channel = 0;
  double level = 0;
};

void *meter_main(void *arg) {
  auto *job = static_cast<MeterJob *>(arg);
  job->level = job->block->select(0, job->channel).abs().max().item<double>();
  return nullptr;
}

void peak_normalise_(torch::Tensor &block) { block.div_(block.abs().max()); }

void MetersThenNormalise(torch::Tensor block) {
  std::vector<MeterJob> jobs(2);
  std::vector<pthread_t> meters(2);
  for (int64_t c = 0; c < 2; ++c) {
    jobs[c] = MeterJob{&block, c, 0};
    pthread_create(&meters[c], nullptr, &meter_main, &jobs[c]);
    // CHECK-MESSAGES: :[[@LINE-1]]:54: warning: by-reference argument 'jobs[c]' holds tensors that share their storage with worker entry point 'pthread_create' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  }
  peak_normalise_(block);
  for (pthread_t &meter : meters)
    pthread_join(meter, nullptr);
}

void JoinedThenNormalise(torch::Tensor block) {
  MeterJob job{&block, 0, 0};
  pthread_t meter;
  pthread_create(&meter, nullptr, &meter_main, &job);
  pthread_join(meter, nullptr);
  peak_normalise_(block);
}
