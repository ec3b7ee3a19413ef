// CASE: a candidate scorer emits its member score buffer through a queued
//       signal to a ranking-metrics slot that runs on an analytics event
//       loop, then debiases and masks the same buffer in place
// SOURCE: the kind of code from Qt front ends around libtorch recommenders
//         (signals with queued connections carrying tensors to a worker
//         thread); https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: bug
// HARM: the metrics slot logs the debiased, masked scores (seen items at
//       -1e4) instead of the raw scores that were emitted
#include <torch/torch.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

// An event loop that delivers posted events in batches on its own thread, one
// batch per tick, the way a UI or analytics loop coalesces work.
class EventLoop {
 public:
  explicit EventLoop(std::chrono::milliseconds tick) : tick_(tick), thread_([this] { run(); }) {}
  ~EventLoop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  void post(std::function<void()> event) {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(event));
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait_for(lock, tick_, [this] { return quit_; });
      std::deque<std::function<void()>> batch;
      batch.swap(events_);
      lock.unlock();
      for (auto& event : batch) event();
      lock.lock();
      if (quit_ && events_.empty()) return;
    }
  }
  std::chrono::milliseconds tick_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> events_;
  bool quit_ = false;
  std::thread thread_;
};

template <class... Args>
class Signal {
 public:
  void connect(EventLoop& loop, std::function<void(Args...)> slot) {
    slots_.push_back({&loop, std::move(slot)});
  }
  void emit(Args... args) {
    for (auto& c : slots_) {
      auto slot = c.slot;
      c.loop->post([slot, args...] { slot(args...); });
    }
  }

 private:
  struct Connection {
    EventLoop* loop;
    std::function<void(Args...)> slot;
  };
  std::vector<Connection> slots_;
};

class CandidateScorer {
 public:
  CandidateScorer(torch::Tensor items, torch::Tensor popularity)
      : items_(std::move(items)), popularity_(std::move(popularity)),
        scores_(torch::empty({0})) {}

  Signal<torch::Tensor> raw_scores_ready;

  torch::Tensor score(const torch::Tensor& users, const torch::Tensor& seen) {
    torch::mm_out(scores_, users, items_.t());
    raw_scores_ready.emit(scores_);                    // BUG(libtorch-worker-missing-clone)
    scores_.sub_(popularity_.log1p().mul(0.5));        // BUG(libtorch-worker-missing-clone)
    scores_.masked_fill_(seen, -1e4);                  // BUG(libtorch-worker-missing-clone)
    return scores_;
  }

 private:
  torch::Tensor items_, popularity_, scores_;
};

int main() {
  torch::manual_seed(3);
  const int64_t n_users = 4, n_items = 32, dim = 16;
  auto items = torch::randn({n_items, dim});
  auto popularity = torch::randint(1, 1000, {n_items}).to(torch::kFloat);
  auto users = torch::randn({n_users, dim});
  auto seen = torch::rand({n_users, n_items}) < 0.3;

  float logged_min = 0.f, logged_mean = 0.f;
  {
    EventLoop analytics(std::chrono::milliseconds(200));
    CandidateScorer scorer(items, popularity);
    scorer.raw_scores_ready.connect(analytics, [&](torch::Tensor raw) {
      logged_min = raw.min().item<float>();
      logged_mean = raw.mean().item<float>();
    });
    auto ranked = scorer.score(users, seen);
    auto top = std::get<1>(ranked.topk(5, 1));
    std::cout << "top-5 of user 0: " << top[0] << "\n";
  }  // the loop drains its last batch and joins here

  auto raw = users.mm(items.t());
  float want_min = raw.min().item<float>(), want_mean = raw.mean().item<float>();
  std::cout << "logged raw scores: min " << logged_min << " mean " << logged_mean << "\n";
  if (std::abs(logged_mean - want_mean) > 1e-3f || std::abs(logged_min - want_min) > 1e-3f)
    std::cout << "HARM: the metrics slot saw min " << logged_min << ", mean " << logged_mean
              << " but the emitted raw scores had min " << want_min << ", mean " << want_mean << "\n";
  return 0;
}
