// A method that stores its argument in a member queue of its object, which
// a worker the class starts reads, hands the argument to that worker (Note
// [Methods that queue their arguments]).
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

// Writes checkpoints on its own thread; flush() waits until it has.
class CheckpointWriter {
public:
  CheckpointWriter() : thread_([this] { run(); }) {}
  ~CheckpointWriter() { thread_.join(); }
  void request(int step, std::vector<torch::Tensor> params) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.emplace_back(step, std::move(params));
  }
  void request_named(torch::OrderedDict<std::string, torch::Tensor> params) {
    std::lock_guard<std::mutex> lock(mu_);
    named_.push_back(std::move(params));
  }
  void flush() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return pending_.empty(); });
  }
  void remember(std::vector<torch::Tensor> params) { history_.push_back(params); }

private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (auto &job : pending_)
      for (auto &t : job.second)
        total_ += t.sum().item<double>();
    for (auto &params : named_)
      total_ += params.size();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  double total_ = 0;
  std::vector<std::pair<int, std::vector<torch::Tensor>>> pending_;
  std::vector<torch::OrderedDict<std::string, torch::Tensor>> named_;
  std::vector<std::vector<torch::Tensor>> history_;
  std::thread thread_;
};

// A logger whose thread drains a queue of single tensors.
class StatsLogger {
public:
  void start() { worker_ = std::thread(&StatsLogger::drain, this); }
  void log(const torch::Tensor &t) { queue_.push_back(t); }
  ~StatsLogger() { worker_.join(); }

private:
  void drain() {
    while (!queue_.empty()) {
      sum_ += queue_.front().sum().item<double>();
      queue_.pop_front();
    }
  }
  std::deque<torch::Tensor> queue_;
  double sum_ = 0;
  std::thread worker_;
};

void PositiveParametersQueuedThenStepped(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  CheckpointWriter writer;
  for (int step = 0; step < 4; ++step) {
    opt.step();
    writer.request(step, model->parameters());
    // CHECK-NOTES: :[[@LINE-1]]:26: warning: argument 'model->parameters()' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
    // CHECK-NOTES: :22:14: note: 'request' stores them in 'pending_' here
    // CHECK-NOTES: :18:24: note: this worker reads 'pending_'
    // CHECK-NOTES: :[[@LINE-5]]:9: note: 'step' updates the parameters of 'model' in place here
  }
  writer.flush();
}

void PositiveNamedParametersQueued(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  CheckpointWriter writer;
  writer.request_named(model->named_parameters());
  // CHECK-NOTES: :[[@LINE-1]]:24: warning: argument 'model->named_parameters()' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :26:12: note: 'request_named' stores them in 'named_' here
  // CHECK-NOTES: :18:24: note: this worker reads 'named_'
  // CHECK-NOTES: :[[@LINE+1]]:7: note: 'step' updates the parameters of 'model' in place here
  opt.step();
}

void PositiveStagingRefilled(const std::vector<torch::Tensor> &frames) {
  StatsLogger logger;
  logger.start();
  torch::Tensor staging = torch::zeros({4});
  for (const auto &frame : frames) {
    staging.copy_(frame);
    logger.log(staging);
    // CHECK-NOTES: :[[@LINE-1]]:16: warning: argument 'staging' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
    // CHECK-NOTES: :56:45: note: 'log' stores it in 'queue_' here
    // CHECK-NOTES: :55:28: note: this worker reads 'queue_'
    // CHECK-NOTES: :[[@LINE-5]]:13: note: 'copy_' writes 'staging' in place here
    // CHECK-FIXES: logger.log(staging.clone());
  }
}

// flush() waits for the writer before the next step.
void NegativeFlushedBeforeTheStep(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  CheckpointWriter writer;
  for (int step = 0; step < 4; ++step) {
    writer.request(step, model->parameters());
    writer.flush();
    opt.step();
  }
}

// No worker reads what remember() keeps.
void NegativeMemberNoWorkerReads(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  CheckpointWriter writer;
  writer.remember(model->parameters());
  opt.step();
}

// The logger is handed a copy.
void NegativeCloneHandedOver(const std::vector<torch::Tensor> &frames) {
  StatsLogger logger;
  logger.start();
  torch::Tensor staging = torch::zeros({4});
  for (const auto &frame : frames) {
    staging.copy_(frame);
    logger.log(staging.clone());
  }
}

// A plain history object has no worker.
struct History {
  void add_snapshot(std::vector<torch::Tensor> params) { snapshots.push_back(params); }
  std::vector<std::vector<torch::Tensor>> snapshots;
};

void NegativeNoWorker(torch::nn::Linear model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  History history;
  history.add_snapshot(model->parameters());
  opt.step();
}

// A friend operator given the object pushes into its queue.
class Recorder {
public:
  Recorder() : writer_([this] { drain(); }) {}
  friend Recorder &operator<<(Recorder &rec, const torch::Tensor &block) {
    std::lock_guard<std::mutex> lock(rec.mu_);
    rec.pending_.push_back(block);
    return rec;
  }
  void close() { writer_.join(); }

private:
  void drain() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &block : pending_)
      total_ += block.sum().item<float>();
  }
  std::mutex mu_;
  float total_ = 0;
  std::deque<torch::Tensor> pending_;
  std::thread writer_;
};

void PositiveStreamedThenProcessed(Recorder &tap, const torch::Tensor &input) {
  auto block = torch::empty({4});
  block.copy_(input);
  tap << block;
  // CHECK-NOTES: :[[@LINE-1]]:10: warning: argument 'block' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-22]]:18: note: 'operator<<' stores it in 'pending_' here
  // CHECK-NOTES: :[[@LINE-26]]:16: note: this worker reads 'pending_'
  block.mul_(2.0);
  // CHECK-NOTES: :[[@LINE-1]]:9: note: 'mul_' writes 'block' in place here
  tap.close();
}

void NegativeStreamedAfterProcessing(Recorder &tap, const torch::Tensor &input) {
  auto block = torch::empty({4});
  block.copy_(input);
  block.mul_(2.0);
  tap << block;
  tap.close();
}
