// CASE: a trainer keeps named callbacks in a std::map<std::string,
//       std::function<void()>>; the "epoch_end" hook captures the per-class
//       loss accumulator (a tensor handle) and fire() posts it to a background
//       logging dispatcher, after which the trainer zeroes the accumulator in
//       place for the next epoch
// SOURCE: callback registries of libtorch training loops whose metric writers
//         run off the training thread (TensorBoard/CSV loggers in C++
//         trainers); thread-safety of shared tensors:
//         https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: bug
// HARM: the rows the logger writes are all zeros instead of each epoch's sums
#include <torch/torch.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

// One background thread; posted tasks run when the owner drains the queue
// (at checkpoints), so logging never competes with the training steps.
template <class Task>
class DeferredDispatcher {
 public:
  DeferredDispatcher() : worker_([this] { loop(); }) {}
  ~DeferredDispatcher() {
    { std::lock_guard<std::mutex> l(m_); stop_ = open_ = true; }
    cv_.notify_all();
    worker_.join();
  }
  void post(Task t) { std::lock_guard<std::mutex> l(m_); q_.push_back(std::move(t)); }
  void drain() {
    std::unique_lock<std::mutex> l(m_);
    open_ = true;
    cv_.notify_all();
    idle_.wait(l, [this] { return q_.empty() && !busy_; });
    open_ = false;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> l(m_);
    for (;;) {
      cv_.wait(l, [this] { return open_ && (!q_.empty() || stop_); });
      if (q_.empty()) return;
      Task t = std::move(q_.front());
      q_.pop_front();
      busy_ = true;
      l.unlock();
      t();
      l.lock();
      busy_ = false;
      idle_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable cv_, idle_;
  std::deque<Task> q_;
  bool open_ = false, stop_ = false, busy_ = false;
  std::thread worker_;
};

class Trainer {
 public:
  using Hook = std::function<void()>;
  void on(const std::string& event, Hook h) { hooks_[event] = std::move(h); }
  void fire(const std::string& event) {
    auto it = hooks_.find(event);
    if (it != hooks_.end()) dispatcher_.post(it->second);  // BUG(libtorch-worker-missing-clone)
  }
  void checkpoint() { dispatcher_.drain(); }

 private:
  std::map<std::string, Hook> hooks_;
  DeferredDispatcher<Hook> dispatcher_;
};

int main() {
  torch::manual_seed(0);
  auto class_loss = torch::zeros({3});
  std::vector<std::vector<float>> rows;
  std::vector<torch::Tensor> expected;

  Trainer trainer;
  trainer.on("epoch_end", [class_loss, &rows] {  // BUG(libtorch-worker-missing-clone)
    auto* p = class_loss.data_ptr<float>();  // BUG(libtorch-worker-missing-clone)
    rows.push_back({p[0], p[1], p[2]});
  });

  for (int epoch = 0; epoch < 2; ++epoch) {
    for (int step = 0; step < 4; ++step) {
      auto labels = torch::randint(0, 3, {8}, torch::kLong);
      auto per_sample = torch::rand({8});
      class_loss.index_add_(0, labels, per_sample);
    }
    expected.push_back(class_loss.clone());
    trainer.fire("epoch_end");  // BUG(libtorch-worker-missing-clone)
    class_loss.zero_();         // BUG(libtorch-worker-missing-clone)
  }
  trainer.checkpoint();

  for (size_t e = 0; e < rows.size(); ++e) {
    auto logged = torch::tensor(rows[e]);
    if (!torch::allclose(logged, expected[e]))
      std::cout << "HARM: epoch " << e << " per-class loss logged as [" << rows[e][0] << ", "
                << rows[e][1] << ", " << rows[e][2] << "] but accumulated ["
                << expected[e][0].item<float>() << ", " << expected[e][1].item<float>() << ", "
                << expected[e][2].item<float>() << "]\n";
  }
  return 0;
}
