// CASE: a transformer posts its attention probabilities, inside a
//       std::variant message, to an actor-style visualiser thread that
//       dispatches with std::visit and renders on a Render message; the
//       encoder then masks padded keys in place on the same tensor
// SOURCE: the kind of code in libtorch NLP inference servers with an
//         attention-map dump/visualisation side thread (bertviz-like exports)
// KIND: bug
// HARM: rendered attention rows no longer sum to 1 (the visualiser sees the
//       padding-masked probabilities, not the ones it was sent)
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

template <class... Ts> struct overloaded : Ts... { using Ts::operator()...; };
template <class... Ts> overloaded(Ts...) -> overloaded<Ts...>;

struct AttentionMap { int layer; torch::Tensor probs; };
struct Render {};
struct Shutdown {};
using Message = std::variant<AttentionMap, Render, Shutdown>;

class Visualiser {
 public:
  Visualiser() : thread_([this] { loop(); }) {}
  ~Visualiser() { close(); }
  void close() {
    if (!thread_.joinable()) return;
    post(Shutdown{});
    thread_.join();
  }
  void post(Message m) {
    { std::lock_guard<std::mutex> lk(mu_); box_.push_back(std::move(m)); }
    cv_.notify_one();
  }
  double min_row_sum() const { return min_row_sum_; }

 private:
  void loop() {
    for (bool running = true; running;) {
      Message m;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [this] { return !box_.empty(); });
        m = std::move(box_.front());
        box_.pop_front();
      }
      std::visit(overloaded{
          [this](AttentionMap& a) { pending_.push_back(std::move(a)); },
          [this](Render&) {
            for (auto& a : pending_)
              min_row_sum_ = std::min(min_row_sum_, a.probs.sum(-1).min().item<double>());
            pending_.clear();
          },
          [&running](Shutdown&) { running = false; }}, m);
    }
  }
  std::vector<AttentionMap> pending_;
  double min_row_sum_ = 1e9;
  std::deque<Message> box_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

int main() {
  torch::manual_seed(0);
  torch::NoGradGuard ng;
  auto q = torch::randn({2, 6, 8}), k = torch::randn({2, 6, 8});
  auto pad = torch::zeros({2, 1, 6}, torch::kBool);
  pad.index_put_({1, 0, torch::indexing::Slice(4, torch::indexing::None)}, true);

  Visualiser vis;
  auto probs = torch::softmax(q.matmul(k.transpose(1, 2)) / std::sqrt(8.0), -1);
  vis.post(AttentionMap{0, probs});  // BUG(libtorch-worker-missing-clone)
  probs.masked_fill_(pad, 0.0);      // BUG(libtorch-worker-missing-clone)
  auto ctx = probs.matmul(torch::randn({2, 6, 8}));
  vis.post(Render{});
  vis.close();

  std::cout << "context norm " << ctx.norm().item<double>() << ", smallest rendered row sum "
            << vis.min_row_sum() << "\n";
  if (vis.min_row_sum() < 0.999)
    std::cout << "HARM: visualiser rendered attention rows summing to " << vis.min_row_sum()
              << " instead of 1\n";
  return 0;
}
