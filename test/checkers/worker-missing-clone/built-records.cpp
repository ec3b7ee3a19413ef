// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Records built in place for a worker hand over the handles they are built
// from (Note [Records built for the worker]).

#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <variant>

struct AttentionMap {
  int layer;
  torch::Tensor probs;
};
struct Shutdown {};
using Message = std::variant<AttentionMap, Shutdown>;

// A visualiser whose thread renders what post() and note() queue.
class Visualiser {
public:
  Visualiser() : thread_([this] { loop(); }) {}
  void post(Message m) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      box_.push_back(std::move(m));
    }
    cv_.notify_one();
  }
  void note(AttentionMap a) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      maps_.push_back(std::move(a));
    }
    cv_.notify_one();
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !box_.empty() || !maps_.empty(); });
    if (!box_.empty())
      total_ += std::get<AttentionMap>(box_.front()).probs.sum().item<double>();
    if (!maps_.empty())
      total_ += maps_.front().probs.sum().item<double>();
  }
  double total_ = 0;
  std::deque<Message> box_;
  std::deque<AttentionMap> maps_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

// A std::variant message made from a struct that holds the probabilities.
void PositiveVariantMessage(Visualiser &vis, const torch::Tensor &mask) {
  auto probs = torch::rand({4, 4});
  vis.post(AttentionMap{0, probs});
  // CHECK-NOTES: :[[@LINE-1]]:28: warning: argument 'probs' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-34]]:12: note: 'post' stores it in 'box_' here
  // CHECK-NOTES: :[[@LINE-39]]:18: note: this worker reads 'box_'
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'masked_fill_' writes 'probs' in place here
  probs.masked_fill_(mask, 0.0);
}

// The struct itself, built in the call.
void PositiveAggregate(Visualiser &vis) {
  auto probs = torch::rand({4, 4});
  vis.note(AttentionMap{1, probs});
  // CHECK-NOTES: :[[@LINE-1]]:28: warning: argument 'probs' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-38]]:13: note: 'note' stores it in 'maps_' here
  // CHECK-NOTES: :[[@LINE-50]]:18: note: this worker reads 'maps_'
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'mul_' writes 'probs' in place here
  probs.mul_(2);
}

double consume(std::pair<int, torch::Tensor> step);

// A pair handed to a thread's function.
void PositivePairArgument() {
  auto grads = torch::rand({8});
  std::thread worker(consume, std::make_pair(3, grads));
  // CHECK-NOTES: :[[@LINE-1]]:49: warning: argument 'grads' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'zero_' writes 'grads' in place here
  grads.zero_();
  worker.join();
}

struct HistJob {
  const torch::Tensor *weight;
  int bins;
};
double histogram(HistJob job);

// A pointer to the tensor, in a struct the thread is given.
void PositivePointerInJob(torch::Tensor &w) {
  std::thread worker(histogram, HistJob{&w, 100});
  // CHECK-NOTES: :[[@LINE-1]]:41: warning: by-reference argument 'w' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:5: note: 'mul_' writes 'w' in place here
  w.mul_(0.5);
  worker.join();
}

// A clone in the message.
void NegativeClonedPart(Visualiser &vis, const torch::Tensor &mask) {
  auto probs = torch::rand({4, 4});
  vis.post(AttentionMap{0, probs.clone()});
  probs.masked_fill_(mask, 0.0);
}

// A message without tensors.
void NegativeNoTensors(Visualiser &vis) {
  auto probs = torch::rand({4, 4});
  vis.post(Shutdown{});
  probs.mul_(2);
}

// Joined before the write.
void NegativeJoinedFirst() {
  auto grads = torch::rand({8});
  std::thread worker(consume, std::make_pair(3, grads));
  worker.join();
  grads.zero_();
}

// CHECK-FIXES: vis.post(AttentionMap{0, probs.clone()});
// CHECK-FIXES: vis.note(AttentionMap{1, probs.clone()});
// CHECK-FIXES: std::thread worker(consume, std::make_pair(3, grads.clone()));
