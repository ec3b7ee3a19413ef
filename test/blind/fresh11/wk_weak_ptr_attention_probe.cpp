// CASE: a ViT block publishes its attention map to a debugging probe as a
//       std::weak_ptr<const torch::Tensor>; the probe's render thread locks
//       the pointer whenever a frame is requested, but the block sharpens
//       the map in place (pow_) for its hard routing right after publishing
// SOURCE: the kind of code in attention-visualisation hooks of vision
//         transformers (observer pattern with weak_ptr, render threads)
// KIND: bug
// HARM: the probe renders attention rows that no longer sum to 1
#include <torch/torch.h>
#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

namespace viz {

class AttentionProbe {
 public:
  AttentionProbe() : th_([this] { loop(); }) {}
  ~AttentionProbe() {
    { std::lock_guard<std::mutex> g(mu_); stop_ = true; }
    cv_.notify_all();
    th_.join();
  }
  void watch(std::weak_ptr<const torch::Tensor> map) { map_ = std::move(map); }
  void request_frame() {
    std::unique_lock<std::mutex> lk(mu_);
    ++requested_;
    cv_.notify_all();
    cv_.wait(lk, [&] { return rendered_ == requested_; });
  }
  double last_row_sum = 0;

 private:
  void loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [&] { return stop_ || rendered_ < requested_; });
      if (stop_) return;
      if (auto m = map_.lock()) last_row_sum = m->sum(-1).mean().item<double>();
      ++rendered_;
      cv_.notify_all();
    }
  }
  std::weak_ptr<const torch::Tensor> map_;
  std::mutex mu_;
  std::condition_variable cv_;
  int requested_ = 0, rendered_ = 0;
  bool stop_ = false;
  std::thread th_;
};

struct RoutedAttention : torch::nn::Module {
  explicit RoutedAttention(AttentionProbe* probe) : probe_(probe) {}
  torch::Tensor forward(const torch::Tensor& q, const torch::Tensor& k) {
    torch::NoGradGuard ng;
    auto scores = q.matmul(k.transpose(-2, -1)) / std::sqrt(double(q.size(-1)));
    attn_ = std::make_shared<torch::Tensor>(torch::softmax(scores, -1));
    if (probe_) probe_->watch(attn_);  // BUG(libtorch-worker-missing-clone)
    attn_->pow_(4.0);  // BUG(libtorch-worker-missing-clone)
    return attn_->argmax(-1);  // hard routing on the sharpened map
  }
  AttentionProbe* probe_;
  std::shared_ptr<torch::Tensor> attn_;
};

}  // namespace viz

int main() {
  torch::manual_seed(0);
  viz::AttentionProbe probe;
  viz::RoutedAttention block(&probe);
  auto q = torch::randn({1, 6, 8}), k = torch::randn({1, 6, 8});
  auto route = block.forward(q, k);
  probe.request_frame();
  std::cout << "probe: mean attention row sum = " << probe.last_row_sum << "\n";
  if (std::abs(probe.last_row_sum - 1.0) > 1e-4)
    std::cout << "HARM: the rendered attention rows sum to " << probe.last_row_sum
              << ", not 1 (the probe read the sharpened map)\n";
  return 0;
}
