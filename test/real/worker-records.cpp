// Ground truth for Note [Records built for the worker] on the real
// std::thread, std::variant and std::pair.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %real_torch

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

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !box_.empty(); });
    total_ += std::get<AttentionMap>(box_.front()).probs.sum().item<double>();
  }
  double total_ = 0;
  std::deque<Message> box_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

void PositiveVariantMessage(Visualiser &vis, const torch::Tensor &mask) {
  auto probs = torch::rand({4, 4});
  vis.post(AttentionMap{0, probs});
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: argument 'probs' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  probs.masked_fill_(mask, 0.0);
}

double consume(std::pair<int, torch::Tensor> step);

void PositivePairArgument() {
  auto grads = torch::rand({8});
  std::thread worker(consume, std::make_pair(3, grads));
  // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: argument 'grads' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  grads.zero_();
  worker.join();
}

void NegativeClonedMessage(Visualiser &vis, const torch::Tensor &mask) {
  auto probs = torch::rand({4, 4});
  vis.post(AttentionMap{0, probs.clone()});
  probs.masked_fill_(mask, 0.0);
}

// CHECK-FIXES: vis.post(AttentionMap{0, probs.clone()});
// CHECK-FIXES: std::thread worker(consume, std::make_pair(3, grads.clone()));
