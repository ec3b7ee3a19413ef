// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Workers that outlive the method that starts them, and the other methods
// that write the members they read (Note [Workers that outlive their
// method]).

#include <torch/torch.h>

#include <mutex>
#include <thread>
#include <vector>

void consume(const torch::Tensor &t);

// A thread kept in a member, started by one method, joined by another.
class Evaluator {
public:
  void start() {
    thread_ = std::thread([this] { consume(obs_); });
  }
  void step(const torch::Tensor &next) {
    obs_.mul_(0).add_(next);
    // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'mul_' writes member 'obs_' in place while the worker that 'start' starts may still read it: 'thread_' keeps the thread, and it is not joined before this write
    // CHECK-NOTES: :[[@LINE-5]]:15: note: the worker that reads 'obs_' is started here
  }
  // Joined first: the worker is done.
  void finish() {
    thread_.join();
    obs_.zero_();
  }
  // Under a lock.
  void reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    obs_.zero_();
  }

private:
  torch::Tensor obs_ = torch::zeros({4});
  std::thread thread_;
  std::mutex mutex_;
};

// A worker started in the constructor's initializers, running a method.
class Logger {
public:
  Logger() : worker_(&Logger::run, this) {}
  void record(const torch::Tensor &x) {
    stats_.add_(x);
    // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'add_' writes member 'stats_' in place while the worker that 'Logger' starts may still read it: 'worker_' keeps the thread, and it is not joined before this write
    // CHECK-NOTES: :[[@LINE-4]]:14: note: the worker that reads 'stats_' is started here
  }
  // The worker's own method writes on the worker's side.
  void run() {
    consume(stats_);
    flush();
  }
  void flush() { stats_.zero_(); }
  ~Logger() { worker_.join(); }

private:
  torch::Tensor stats_ = torch::zeros({4});
  std::thread worker_;
};

// A detached thread, and threads kept in a member container.
class Prefetcher {
public:
  void kick() {
    std::thread([this] { consume(buffer_); }).detach();
  }
  void spawn() {
    pool_.push_back(std::thread([this] { consume(scratch_); }));
  }
  void refill(const torch::Tensor &next) {
    buffer_.copy_(next);
    // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'copy_' writes member 'buffer_' in place while the worker that 'kick' starts may still read it: the thread is detached
    // CHECK-NOTES: :[[@LINE-8]]:5: note: the worker that reads 'buffer_' is started here
    scratch_.fill_(0);
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'fill_' writes member 'scratch_' in place while the worker that 'spawn' starts may still read it: 'pool_' keeps the thread, and it is not joined before this write
    // CHECK-NOTES: :[[@LINE-8]]:21: note: the worker that reads 'scratch_' is started here
  }
  // A member no worker reads.
  void clear() { unused_.zero_(); }

private:
  torch::Tensor buffer_, scratch_, unused_;
  std::vector<std::thread> pool_;
};

// The method that starts the worker joins it before returning.
class Blocking {
public:
  void once() {
    thread_ = std::thread([this] { consume(obs_); });
    thread_.join();
  }
  void step() { obs_.add_(1); }

private:
  torch::Tensor obs_;
  std::thread thread_;
};

// Note [Methods the program calls before the worker starts]: the unit calls
// reset() only before request(), in one function, on one object.
class Policy {
public:
  void reset(const torch::Tensor &first) { obs_.copy_(first); }
  void request() {
    pending_ = std::thread([this] { consume(obs_); });
  }
  void observe(const torch::Tensor &next) {
    obs_.copy_(next);
    // CHECK-NOTES: :[[@LINE-1]]:10: warning: 'copy_' writes member 'obs_' in place while the worker that 'request' starts may still read it: 'pending_' keeps the thread, and it is not joined before this write
    // CHECK-NOTES: :[[@LINE-5]]:16: note: the worker that reads 'obs_' is started here
  }
  void finish() { pending_.join(); }

private:
  torch::Tensor obs_ = torch::zeros({4});
  std::thread pending_;
};

void RunPolicy(const torch::Tensor &a, const torch::Tensor &b) {
  Policy policy;
  policy.reset(a);
  policy.request();
  policy.observe(b);
  policy.finish();
}

// The same reset() called again after the worker starts, in a loop.
class LoopedPolicy {
public:
  void reset(const torch::Tensor &first) { obs_.copy_(first); }
  // CHECK-NOTES: :[[@LINE-1]]:49: warning: 'copy_' writes member 'obs_' in place while the worker that 'request' starts may still read it: 'pending_' keeps the thread, and it is not joined before this write
  // CHECK-NOTES: :[[@LINE+3]]:18: note: the worker that reads 'obs_' is started here
  void request() {
    if (!pending_.joinable())
      pending_ = std::thread([this] { consume(obs_); });
  }

private:
  torch::Tensor obs_ = torch::zeros({4});
  std::thread pending_;
};

void RunLoopedPolicy(const std::vector<torch::Tensor> &frames) {
  LoopedPolicy policy;
  for (const auto &frame : frames) {
    policy.reset(frame);
    policy.request();
  }
}
