// A call through a base class runs one of the overrides of the file (Note
// [Calls that run code chosen at run time]): an override that queues its
// argument for the object's worker hands it over, and one that waits for the
// worker is a join.
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

class Sink {
public:
  virtual ~Sink() = default;
  virtual void consume(const torch::Tensor &t) = 0;
  virtual void flush() = 0;
};

// Records on its own thread; flush() waits until it has.
class ThreadedSink final : public Sink {
public:
  ThreadedSink() : writer_([this] { run(); }) {}
  ~ThreadedSink() override { writer_.join(); }
  void consume(const torch::Tensor &t) override {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(t);
  }
  void flush() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return pending_.empty(); });
  }

private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!pending_.empty()) {
      (void)pending_.front().sum();
      pending_.pop_front();
    }
    cv_.notify_all();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<torch::Tensor> pending_;
  std::thread writer_;
};

// Records on the caller's thread.
class PrintSink : public Sink {
public:
  void consume(const torch::Tensor &t) override { (void)t.sum(); }
  void flush() override {}
};

std::unique_ptr<Sink> makeSink(bool async) {
  if (async)
    return std::make_unique<ThreadedSink>();
  return std::make_unique<PrintSink>();
}

// The accumulator is zeroed while the writer may still read it.
void PositiveThroughBasePointer() {
  auto sink = makeSink(true);
  auto acc = torch::zeros({8});
  for (int window = 0; window < 3; ++window) {
    acc.add_(torch::randn({8}));
    sink->consume(acc);
    // CHECK-NOTES: :[[@LINE-1]]:19: warning: argument 'acc' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE-43]]:14: note: 'consume' stores it in 'pending_' here
    // CHECK-NOTES: :[[@LINE-48]]:20: note: this worker reads 'pending_'
    // CHECK-NOTES: :[[@LINE-5]]:9: note: 'add_' writes 'acc' in place here
    acc.zero_();
  }
}

// Through a reference to the base.
void PositiveThroughBaseReference(Sink &sink, torch::Tensor grad) {
  sink.consume(grad);
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: argument 'grad' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-54]]:14: note: 'consume' stores it in 'pending_' here
  // CHECK-NOTES: :[[@LINE-59]]:20: note: this worker reads 'pending_'
  // CHECK-NOTES: :[[@LINE+1]]:8: note: 'mul_' writes 'grad' in place here
  grad.mul_(0.5);
}

// flush() waits for the writer in ThreadedSink's override: the zeroing
// comes after it.
void NegativeFlushedBeforeTheWrite() {
  auto sink = makeSink(true);
  auto acc = torch::zeros({8});
  for (int window = 0; window < 3; ++window) {
    acc.add_(torch::randn({8}));
    sink->consume(acc);
    sink->flush();
    acc.zero_();
  }
}

// A sink of a known type that records on the caller's thread.
void NegativeKnownSynchronousSink(torch::Tensor grad) {
  PrintSink sink;
  sink.consume(grad);
  grad.mul_(0.5);
}

// A clone is handed over.
void NegativeClone(Sink &sink, torch::Tensor grad) {
  sink.consume(grad.clone());
  grad.mul_(0.5);
}

// The fix-its clone what is handed over.
// CHECK-FIXES: {{^}}    sink->consume(acc.clone());{{$}}
// CHECK-FIXES: {{^}}  sink.consume(grad.clone());{{$}}
