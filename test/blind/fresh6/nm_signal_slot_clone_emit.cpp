// CASE: a moderation classifier emits its logits through a queued signal to
//       a dashboard slot on an event-loop thread, then temperature-scales and
//       masks its member logits buffer in place; the emit passes a clone
// SOURCE: the kind of code from Qt dashboards around libtorch classifiers
//         (queued signals carrying tensors to another thread);
//         https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: near-miss
// WHY-OK: the slot receives logits_.clone(), a tensor nobody writes; the
//         in-place scaling touches only the classifier's own buffer
#include <torch/torch.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

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
      auto batch = std::move(events_);
      events_.clear();
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
    slots_.emplace_back(&loop, std::move(slot));
  }
  void emit(Args... args) {
    for (auto& [loop, slot] : slots_) {
      auto fn = slot;
      loop->post([fn, args...] { fn(args...); });
    }
  }

 private:
  std::vector<std::pair<EventLoop*, std::function<void(Args...)>>> slots_;
};

struct ToxicityHeadImpl : torch::nn::Module {
  ToxicityHeadImpl(int64_t vocab, int64_t dim, int64_t labels)
      : bag(register_module("bag", torch::nn::EmbeddingBag(vocab, dim))),
        out(register_module("out", torch::nn::Linear(dim, labels))) {}
  torch::Tensor forward(const torch::Tensor& tokens) { return out(bag(tokens)); }
  torch::nn::EmbeddingBag bag;
  torch::nn::Linear out;
};
TORCH_MODULE(ToxicityHead);

class Moderator {
 public:
  Moderator(ToxicityHead head, double temperature) : head_(std::move(head)), temperature_(temperature) {}
  Signal<torch::Tensor> raw_logits;

  torch::Tensor classify(const torch::Tensor& tokens, const torch::Tensor& disabled_labels) {
    torch::NoGradGuard no_grad;
    logits_ = head_->forward(tokens);
    raw_logits.emit(logits_.clone());
    logits_.div_(temperature_);
    logits_.index_fill_(1, disabled_labels, -1e4);
    return logits_.softmax(1);
  }

 private:
  ToxicityHead head_;
  double temperature_;
  torch::Tensor logits_;
};

int main() {
  torch::manual_seed(61);
  const int64_t vocab = 1000, dim = 32, labels = 6, batch = 8, len = 12;
  ToxicityHead head(vocab, dim, labels);
  auto tokens = torch::randint(vocab, {batch, len}, torch::kLong);
  torch::Tensor expected;
  {
    torch::NoGradGuard no_grad;
    expected = head->forward(tokens);
  }

  double logged_max = 0;
  {
    EventLoop dashboard(std::chrono::milliseconds(200));
    Moderator moderator(head, 1.7);
    moderator.raw_logits.connect(dashboard, [&](torch::Tensor raw) { logged_max = raw.max().item<double>(); });
    auto probs = moderator.classify(tokens, torch::tensor({4, 5}, torch::kLong));
    std::cout << "p(label 0) of the first comment: " << probs[0][0].item<double>() << "\n";
  }
  std::cout << "dashboard max raw logit " << logged_max << ", expected " << expected.max().item<double>() << "\n";
  return 0;
}
