// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Members published to other threads by an atomic store of a pointer to a
// copy of their handle (Note [Handles published atomically]).

#include <torch/torch.h>

#include <atomic>
#include <memory>

// The learner publishes its weights for actors, then updates them in place.
class Learner {
public:
  explicit Learner(torch::Tensor w) : weights_(std::move(w)) { publish(); }
  std::shared_ptr<const torch::Tensor> snapshot() const {
    return std::atomic_load(&published_);
  }
  void learn(const torch::Tensor &grad) {
    weights_.add_(grad, -0.1);
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'add_' writes member 'weights_' in place while other threads may still read the snapshot of it that 'publish' publishes atomically in 'published_': the snapshot shares the member's storage [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE+6]]:5: note: 'weights_' is published here without a copy
    publish();
  }

private:
  void publish() {
    std::atomic_store(&published_, std::make_shared<const torch::Tensor>(weights_));
  }
  torch::Tensor weights_;
  std::shared_ptr<const torch::Tensor> published_;
};

// Through a local pointer and a view, written in the publishing method.
class Statistics {
public:
  void update(const torch::Tensor &batch) {
    running_.mul_(0.9).add_(batch.mean(0), 0.1);
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'mul_' writes member 'running_' in place while other threads may still read the snapshot of it that 'update' publishes atomically in 'latest_': the snapshot shares the member's storage [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE+2]]:5: note: 'running_' is published here without a copy
    auto snap = std::make_shared<torch::Tensor>(running_.detach());
    std::atomic_exchange(&latest_, snap);
  }

private:
  torch::Tensor running_;
  std::shared_ptr<torch::Tensor> latest_;
};


// Publishing a clone: readers keep their own tensor.
class CloningLearner {
public:
  void learn(const torch::Tensor &grad) {
    weights_.add_(grad, -0.1);
    std::atomic_store(&published_,
                      std::make_shared<const torch::Tensor>(weights_.clone()));
  }

private:
  torch::Tensor weights_;
  std::shared_ptr<const torch::Tensor> published_;
};

// Updating out of place: the member names a new tensor, the snapshot keeps
// the old one.
class RebindingLearner {
public:
  void learn(const torch::Tensor &grad) {
    weights_ = weights_ - 0.1 * grad;
    std::atomic_store(&published_, std::make_shared<const torch::Tensor>(weights_));
  }

private:
  torch::Tensor weights_;
  std::shared_ptr<const torch::Tensor> published_;
};

// A plain assignment of the pointer says nothing about other threads; the
// member written in place is not the one published.
class Cache {
public:
  void learn(const torch::Tensor &grad) {
    weights_.add_(grad);
    momentum_.mul_(0.9);
    last_ = std::make_shared<torch::Tensor>(weights_);
    std::atomic_store(&published_, std::make_shared<const torch::Tensor>(bias_));
  }

private:
  torch::Tensor weights_, momentum_, bias_;
  std::shared_ptr<torch::Tensor> last_;
  std::shared_ptr<const torch::Tensor> published_;
};

// The fix-its publish a clone. std::atomic<std::shared_ptr> members are in
// published-snapshots-atomic.cpp (C++20).
// CHECK-FIXES: std::atomic_store(&published_, std::make_shared<const torch::Tensor>(weights_.clone()));
// CHECK-FIXES: auto snap = std::make_shared<torch::Tensor>(running_.detach().clone());
