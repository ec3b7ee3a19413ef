// CASE: a hand-written Task<T> with a folly-style then() runs its
//       continuation on an executor thread when the upstream value arrives;
//       the drift check captures the item embeddings by value, and the
//       indexer L2-normalises the same embeddings in place before the
//       baseline statistics come back from the polled client
// SOURCE: the kind of code in C++ recommendation / retrieval services that
//         chain async RPC results with continuations
// KIND: bug
// HARM: the drift metric is computed on the normalised rows, not on the raw
//       embeddings it was scheduled for

#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

class Executor {
 public:
  Executor() : thread_([this] { loop(); }) {}
  ~Executor() {
    post(nullptr);
    thread_.join();
  }
  void post(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return !jobs_.empty(); });
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      if (!job) return;
      job();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::thread thread_;
};

template <typename T>
class Task {
  struct State {
    std::mutex mutex;
    std::optional<T> value;
    std::function<void(const T&)> continuation;
  };

 public:
  explicit Task(Executor& ex) : ex_(&ex), state_(std::make_shared<State>()) {}

  void set_value(T v) {
    std::function<void(const T&)> cont;
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->value = std::move(v);
      cont = state_->continuation;
    }
    if (cont) ex_->post([cont, st = state_] { cont(*st->value); });
  }

  template <typename F>
  std::future<std::invoke_result_t<F, const T&>> then(F f) {
    using R = std::invoke_result_t<F, const T&>;
    auto promise = std::make_shared<std::promise<R>>();
    auto result = promise->get_future();
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->continuation = [promise, f](const T& v) { promise->set_value(f(v)); };
    return result;
  }

 private:
  Executor* ex_;
  std::shared_ptr<State> state_;
};

struct BaselineStats {
  torch::Tensor mean;
};

// Polled RPC client: responses are delivered from poll(), like a completion queue.
class StatsClient {
 public:
  explicit StatsClient(Executor& ex) : pending_(ex) {}
  Task<BaselineStats>& fetch() { return pending_; }
  void poll() { pending_.set_value(BaselineStats{torch::full({8}, 0.5f)}); }

 private:
  Task<BaselineStats> pending_;
};

int main() {
  torch::manual_seed(0);
  Executor executor;
  StatsClient client(executor);
  torch::Tensor item_emb = 0.5 + torch::randn({64, 8});
  float expected = (item_emb.mean(0) - 0.5).norm().item<float>();

  std::future<float> drift = client.fetch().then([item_emb](const BaselineStats& s) {  // BUG(libtorch-worker-missing-clone)
    return (item_emb.mean(0) - s.mean).norm().item<float>();
  });

  // Build the cosine index: unit rows, in place to spare 64x8 floats.
  item_emb.div_(item_emb.norm(2, 1, /*keepdim=*/true));  // BUG(libtorch-worker-missing-clone)

  client.poll();
  float got = drift.get();
  std::printf("embedding drift %.4f (raw embeddings give %.4f)\n", got, expected);
  if (std::abs(got - expected) > 1e-4)
    std::printf("HARM: drift computed as %.4f instead of %.4f; the continuation "
                "read the rows normalised in place\n", got, expected);
  return 0;
}
