// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Workers started by a call whose result is dropped, and not waited for in
// their method (Note [Workers that outlive their method]): a future's
// callback, a task given to a pool. Each is a unit of work of the call that
// starts it, so the next call's write of the member it reads races it too.
// A worker reads a member through `this`, or through a handle to it that it
// captures or is given as an argument.

#include <torch/jit.h>
#include <torch/torch.h>

#include <c10/core/thread_pool.h>

#include <functional>
#include <future>
#include <thread>
#include <vector>

void save(const torch::Tensor &t);

using FuturePtr = c10::intrusive_ptr<c10::ivalue::Future>;

// A reply callback capturing a handle copy of a reused buffer; the next
// call refills the buffer before the completion thread runs the callback.
class Batcher {
public:
  FuturePtr run(const torch::Tensor &batch, std::vector<int64_t> &reply) {
    logits_.copy_(batch);
    // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'copy_' writes member 'logits_' in place while the worker that the previous call of 'run' started may still read it: nothing waits for it before 'run' returns [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE+3]]:5: note: the worker that reads 'logits_' is started here
    auto fut = c10::make_intrusive<c10::ivalue::Future>();
    auto logits = logits_;
    fut->addCallback([logits, &reply](c10::ivalue::Future &) {
      reply.push_back(logits.sum().item<int64_t>());
    });
    return fut;
  }

private:
  torch::Tensor logits_ = torch::zeros({2, 5});
};

// A pool task per call reading the member through `this`; another method
// writes it too.
class Exporter {
public:
  void publish(const torch::Tensor &features) {
    staging_.copy_(features);
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'copy_' writes member 'staging_' in place while the worker that the previous call of 'publish' started may still read it: nothing waits for it before 'publish' returns [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE+1]]:5: note: the worker that reads 'staging_' is started here
    pool_.run([this] { save(staging_); });
  }
  void clear() { staging_.zero_(); }
  // CHECK-NOTES: :[[@LINE-1]]:27: warning: 'zero_' writes member 'staging_' in place while the worker that 'publish' starts may still read it: nothing waits for it before 'publish' returns [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-4]]:5: note: the worker that reads 'staging_' is started here

private:
  torch::Tensor staging_ = torch::zeros({8});
  c10::ThreadPool pool_{2};
};

// The task is given the member's handle as a capture initialiser.
class Snapshotter {
public:
  void snapshot(const torch::Tensor &w) {
    last_.mul_(0.9).add_(w, 0.1);
    // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'mul_' writes member 'last_' in place while the worker that the previous call of 'snapshot' started may still read it: nothing waits for it before 'snapshot' returns [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE+1]]:5: note: the worker that reads 'last_' is started here
    pool_.run([copy = last_] { save(copy); });
  }

private:
  torch::Tensor last_ = torch::zeros({8});
  c10::ThreadPool pool_{2};
};

// The callback is waited for before the method returns.
class WaitedBatcher {
public:
  void run(const torch::Tensor &batch) {
    logits_.copy_(batch);
    auto fut = c10::make_intrusive<c10::ivalue::Future>();
    fut->addCallback([logits = logits_](c10::ivalue::Future &) { save(logits); });
    fut->markCompleted();
  }

private:
  torch::Tensor logits_ = torch::zeros({2, 5});
};

// The task is given a clone.
class ClonedExporter {
public:
  void publish(const torch::Tensor &features) {
    staging_.copy_(features);
    pool_.run([copy = staging_.clone()] { save(copy); });
  }

private:
  torch::Tensor staging_ = torch::zeros({8});
  c10::ThreadPool pool_{2};
};

// A detached thread started once, after the buffers are initialised.
class Monitor {
public:
  void start() {
    window_.zero_();
    std::thread([this] { save(window_); }).detach();
  }

private:
  torch::Tensor window_ = torch::zeros({8});
};

// The task reads another member than the one written.
class SplitExporter {
public:
  void publish(const torch::Tensor &features) {
    scratch_.copy_(features);
    pool_.run([this] { save(ready_); });
  }

private:
  torch::Tensor scratch_ = torch::zeros({8});
  torch::Tensor ready_ = torch::zeros({8});
  c10::ThreadPool pool_{2};
};

double recall(torch::Tensor items, torch::Tensor queries);

// A future kept in a member container, given the member's handle as an
// argument; another method updates the member before report() waits.
class Trainer {
public:
  void scheduleEval(const torch::Tensor &queries) {
    pending_.push_back(std::async(std::launch::deferred, recall, items_, queries));
  }
  void update(const torch::Tensor &grad) {
    items_.sub_(grad);
    // CHECK-NOTES: :[[@LINE-1]]:12: warning: 'sub_' writes member 'items_' in place while the worker that 'scheduleEval' starts may still read it: 'pending_' keeps the thread, and it is not joined before this write [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE-5]]:24: note: the worker that reads 'items_' is started here
  }
  void report() {
    for (auto &f : pending_)
      f.get();
  }

private:
  torch::Tensor items_ = torch::zeros({16, 8});
  std::vector<std::future<double>> pending_;
};

// The same with a clone of the member as the argument.
class ClonedTrainer {
public:
  void scheduleEval(const torch::Tensor &queries) {
    pending_.push_back(
        std::async(std::launch::deferred, recall, items_.clone(), queries));
  }
  void update(const torch::Tensor &grad) {
    items_.sub_(grad);
  }

private:
  torch::Tensor items_ = torch::zeros({16, 8});
  std::vector<std::future<double>> pending_;
};

// Every kept future is waited for, through a range-for over the member or
// an element of it, before the update.
class WaitedTrainer {
public:
  void scheduleEval(const torch::Tensor &queries) {
    pending_.push_back(std::async(std::launch::deferred, recall, items_, queries));
  }
  void update(const torch::Tensor &grad) {
    for (auto &f : pending_)
      f.wait();
    items_.sub_(grad);
  }
  void decay() {
    pending_.back().wait();
    pending_[0].wait();
    items_.mul_(0.9);
  }

private:
  torch::Tensor items_ = torch::zeros({16, 8});
  std::vector<std::future<double>> pending_;
};
