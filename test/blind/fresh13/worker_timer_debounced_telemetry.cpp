// CASE: a decoding server schedules a debounced telemetry callback on a
//       timer thread (a std::multimap of deadlines -> std::function) that
//       captures the step's logits by value, then applies temperature and
//       log-softmax to those logits in place before the deadline fires
// SOURCE: the kind of code in C++ LLM/ASR serving loops that log the entropy
//         of the raw distribution "off the hot path" with a timer
// KIND: bug
// HARM: the telemetry reports the entropy/max of the already normalised
//       log-probabilities instead of the raw logits

#include <torch/torch.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

class TimerQueue {
  using Clock = std::chrono::steady_clock;

 public:
  TimerQueue() : thread_([this] { run(); }) {}
  ~TimerQueue() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void schedule_after(std::chrono::milliseconds delay, std::function<void()> fn) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      timers_.emplace(Clock::now() + delay, std::move(fn));
    }
    cv_.notify_all();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (timers_.empty()) {
        if (stopping_) return;
        cv_.wait(lock);
        continue;
      }
      auto due = timers_.begin()->first;
      if (Clock::now() < due) {
        cv_.wait_until(lock, due);
        continue;
      }
      auto fn = std::move(timers_.begin()->second);
      timers_.erase(timers_.begin());
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::multimap<Clock::time_point, std::function<void()>> timers_;
  bool stopping_ = false;
  std::thread thread_;
};

struct StepStats {
  std::mutex mutex;
  float max_logit = 0.f;
};

int main() {
  torch::manual_seed(0);
  const int64_t vocab = 32, hidden = 16;
  const double temperature = 0.7;
  torch::nn::Linear lm_head(hidden, vocab);
  torch::NoGradGuard inference;

  StepStats stats;
  float raw_max = 0.f;
  {
    TimerQueue timers;
    torch::Tensor h = torch::randn({1, hidden});
    torch::Tensor logits = lm_head->forward(h).squeeze(0);
    raw_max = logits.max().item<float>();

    // Debounced: the exporter only wants one sample every half second.
    timers.schedule_after(std::chrono::milliseconds(500), [logits, &stats] {  // BUG(libtorch-worker-missing-clone)
      float m = logits.max().item<float>();
      std::lock_guard<std::mutex> lock(stats.mutex);
      stats.max_logit = m;
    });

    // Sampling path: temperature, then log-softmax, all in place.
    logits.div_(temperature);  // BUG(libtorch-worker-missing-clone)
    logits.sub_(logits.logsumexp(0));  // BUG(libtorch-worker-missing-clone)
    int64_t token = logits.exp().multinomial(1).item<int64_t>();
    std::printf("sampled token %lld\n", static_cast<long long>(token));
  }  // the timer queue runs what is due, then stops

  std::printf("raw max logit %.4f, telemetry saw %.4f\n", raw_max, stats.max_logit);
  if (std::abs(raw_max - stats.max_logit) > 1e-4)
    std::printf("HARM: telemetry logged max logit %.4f, the model produced %.4f "
                "(it read the log-probabilities written in place)\n",
                stats.max_logit, raw_max);
  return 0;
}
