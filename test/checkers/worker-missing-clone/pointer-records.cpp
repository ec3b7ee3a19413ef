// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// POSIX threads (Note [POSIX threads]) and records that point to tensors
// (Note [Records that point to tensors]).

#include <torch/torch.h>

#include <pthread.h>

#include <memory>
#include <thread>
#include <vector>

struct MeterJob {
  const torch::Tensor *block = nullptr;
  long channel = 0;
  double level = 0;
};

void *meter_main(void *arg) {
  auto *job = static_cast<MeterJob *>(arg);
  job->level = job->block->select(0, job->channel).sum().item<double>();
  return nullptr;
}

struct Frame {
  torch::Tensor pixels;
  double mean = 0;
};

void *frame_stats(void *arg) {
  auto *frame = static_cast<Frame *>(arg);
  frame->mean = frame->pixels.mean().item<double>();
  return nullptr;
}

void *tensor_sum(void *arg) {
  static_cast<torch::Tensor *>(arg)->sum();
  return nullptr;
}

struct SharedJob {
  std::shared_ptr<torch::Tensor> weights;
  double norm = 0;
};

void norm_of(SharedJob *job) { job->norm = job->weights->norm().item<double>(); }

// A job on the stack that points to the block.
void PositiveJobPointsToBlock() {
  auto block = torch::rand({2, 8});
  MeterJob job{&block, 0, 0};
  pthread_t meter;
  pthread_create(&meter, nullptr, &meter_main, &job);
  // CHECK-NOTES: :[[@LINE-1]]:48: warning: by-reference argument 'job' holds tensors that share their storage with worker entry point 'pthread_create' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'job.block' holds 'block' from here
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'mul_' writes 'block' in place here
  block.mul_(2);
  pthread_join(meter, nullptr);
}

// One job per channel in a vector, each filled by assignment.
void PositiveJobsPerChannel() {
  auto block = torch::rand({2, 8});
  std::vector<MeterJob> jobs(2);
  std::vector<pthread_t> meters(2);
  for (int c = 0; c < 2; ++c) {
    jobs[c] = MeterJob{&block, c, 0};
    pthread_create(&meters[c], nullptr, meter_main, &jobs[c]);
    // CHECK-NOTES: :[[@LINE-1]]:53: warning: by-reference argument 'jobs[c]' holds tensors that share their storage with worker entry point 'pthread_create' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE-3]]:5: note: an element of 'jobs' holds 'block' from here
    // CHECK-NOTES: :[[@LINE+2]]:9: note: 'div_' writes 'block' in place here
  }
  block.div_(block.abs().max());
  for (pthread_t &meter : meters)
    pthread_join(meter, nullptr);
}

// A struct that holds the tensor, handed by address.
void PositiveFrameByAddress() {
  Frame frame{torch::rand({3, 4, 4}), 0};
  pthread_t stats;
  pthread_create(&stats, nullptr, frame_stats, &frame);
  // CHECK-NOTES: :[[@LINE-1]]:48: warning: by-reference argument 'frame' holds tensors that share their storage with worker entry point 'pthread_create' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:16: note: 'sub_' writes 'frame.pixels' in place here
  frame.pixels.sub_(0.5);
  pthread_join(stats, nullptr);
}

// The tensor itself, by address.
void PositiveTensorByAddress() {
  auto x = torch::rand({16});
  pthread_t summer;
  pthread_create(&summer, nullptr, tensor_sum, &x);
  // CHECK-NOTES: :[[@LINE-1]]:48: warning: by-reference argument 'x' shares its storage with worker entry point 'pthread_create' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:5: note: 'clamp_' writes 'x' in place here
  x.clamp_(0.1, 0.9);
  pthread_join(summer, nullptr);
}

// A std::thread handed a record that points to the tensor.
void PositivePointerRecordInStdThread() {
  auto block = torch::rand({2, 8});
  MeterJob job{&block, 1, 0};
  std::thread meter(meter_main, &job);
  // CHECK-NOTES: :[[@LINE-1]]:33: warning: by-reference argument 'job' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:12: note: 'job.block' holds 'block' from here
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'zero_' writes 'block' in place here
  block.zero_();
  meter.join();
}

// A shared_ptr member points to a copy of the handle.
void PositiveSharedPointerMember(torch::Tensor w) {
  SharedJob job{std::make_shared<torch::Tensor>(w), 0};
  std::thread worker(norm_of, &job);
  // CHECK-NOTES: :[[@LINE-1]]:31: warning: by-reference argument 'job' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:13: note: 'job.weights' holds 'w' from here
  // CHECK-NOTES: :[[@LINE+1]]:5: note: 'mul_' writes 'w' in place here
  w.mul_(0.5);
  worker.join();
}

// Joined before the write.
void NegativeJoinedFirst() {
  auto block = torch::rand({2, 8});
  MeterJob job{&block, 0, 0};
  pthread_t meter;
  pthread_create(&meter, nullptr, meter_main, &job);
  pthread_join(meter, nullptr);
  block.mul_(2);
}

// The job points to a clone; the original is written.
void NegativePointsToClone() {
  auto block = torch::rand({2, 8});
  torch::Tensor captured = block.clone();
  MeterJob job{&captured, 0, 0};
  pthread_t meter;
  pthread_create(&meter, nullptr, meter_main, &job);
  block.mul_(2);
  pthread_join(meter, nullptr);
}

// Every meter is joined in the loop before the block is normalised.
void NegativeJoinedInLoop() {
  auto block = torch::rand({2, 8});
  std::vector<MeterJob> jobs(2);
  std::vector<pthread_t> meters(2);
  for (int c = 0; c < 2; ++c) {
    jobs[c] = MeterJob{&block, c, 0};
    pthread_create(&meters[c], nullptr, meter_main, &jobs[c]);
  }
  for (pthread_t &meter : meters)
    pthread_join(meter, nullptr);
  block.div_(2);
}

// Another tensor is written.
void NegativeOtherTensor() {
  auto block = torch::rand({2, 8});
  auto features = torch::rand({2, 8});
  MeterJob job{&block, 0, 0};
  pthread_t meter;
  pthread_create(&meter, nullptr, meter_main, &job);
  features.mul_(2);
  pthread_join(meter, nullptr);
}

// A unique_ptr to a job that points to a module's weight, moved into the
// worker's init-capture.
struct HistJob {
  long step;
  const torch::Tensor *source;
};

void PositiveUniqueJobOfAWeight(torch::nn::Linear fc) {
  auto job = std::make_unique<HistJob>(HistJob{100, &fc->weight});
  std::thread writer([job = std::move(job)] { job->source->sum(); });
  // CHECK-NOTES: :[[@LINE-1]]:23: warning: by-value capture 'job' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-3]]:8: note: 'job->source' holds 'weight' from here
  // CHECK-NOTES: :[[@LINE+1]]:14: note: 'mul_' writes 'weight' in place here
  fc->weight.mul_(0.5);
  writer.join();
}

void NegativeUniqueJobOfAClone(torch::nn::Linear fc) {
  torch::Tensor snapshot = fc->weight.clone();
  auto job = std::make_unique<HistJob>(HistJob{100, &snapshot});
  std::thread writer([job = std::move(job)] { job->source->sum(); });
  fc->weight.mul_(0.5);
  writer.join();
}
