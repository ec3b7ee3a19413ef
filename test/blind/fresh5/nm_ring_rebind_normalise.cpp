// CASE: a software-triggered camera thread pushes each exposure into a
//       RingBuffer<Frame, N> class template and keeps the same tensor as
//       prev_ to score motion on the next exposure; the detector thread pops
//       the frame and normalises it out of place into its own input tensor
// SOURCE: robotics perception nodes in libtorch (capture + detector threads
//         over a lock-based ring buffer, frame differencing as a motion gate)
// KIND: near-miss
// WHY-OK: the frame tensor shared by the two threads is only ever read; the
//         detector's normalisation allocates a new tensor instead of writing
//         the popped one
#include <torch/torch.h>

#include <array>
#include <cmath>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

using torch::indexing::Slice;

template <class T, size_t N>
class RingBuffer {
 public:
  void push(T v) {
    std::unique_lock<std::mutex> l(m_);
    not_full_.wait(l, [this] { return size_ < N; });
    slots_[(head_ + size_) % N] = std::move(v);
    ++size_;
    not_empty_.notify_one();
  }
  T pop() {
    std::unique_lock<std::mutex> l(m_);
    not_empty_.wait(l, [this] { return size_ > 0; });
    T v = std::move(slots_[head_]);
    head_ = (head_ + 1) % N;
    --size_;
    not_full_.notify_one();
    return v;
  }

 private:
  std::array<T, N> slots_;
  size_t head_ = 0, size_ = 0;
  std::mutex m_;
  std::condition_variable not_full_, not_empty_;
};

struct Frame {
  torch::Tensor image;
  float motion = 0.f;
  int64_t seq = 0;
};

// Synthetic scene: a bright 4x4 square moving one pixel per exposure.
torch::Tensor scene(int64_t seq) {
  auto img = torch::full({1, 16, 16}, 0.2f);
  img.index_put_({0, Slice(4, 8), Slice(seq, seq + 4)}, 0.9f);
  return img;
}

class TriggeredCamera {
 public:
  explicit TriggeredCamera(RingBuffer<Frame, 4>& out) : out_(out), thread_([this] { run(); }) {}
  ~TriggeredCamera() {
    { std::lock_guard<std::mutex> l(m_); stop_ = true; }
    cv_.notify_one();
    thread_.join();
  }
  void trigger() {
    { std::lock_guard<std::mutex> l(m_); ++pending_; }
    cv_.notify_one();
  }

 private:
  void run() {
    for (int64_t seq = 0;; ++seq) {
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [this] { return pending_ > 0 || stop_; });
        if (pending_ == 0) return;
        --pending_;
      }
      auto img = scene(seq);
      float motion = prev_.defined() ? (img - prev_).abs().mean().item<float>() : 0.f;
      prev_ = img;
      out_.push(Frame{img, motion, seq});
    }
  }
  RingBuffer<Frame, 4>& out_;
  torch::Tensor prev_;
  std::mutex m_;
  std::condition_variable cv_;
  int pending_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

int main() {
  torch::manual_seed(0);
  RingBuffer<Frame, 4> ring;
  TriggeredCamera cam(ring);
  torch::nn::Conv2d detector(torch::nn::Conv2dOptions(1, 2, 3).padding(1));
  const float mean = 0.45f, stdv = 0.25f;

  for (int i = 0; i < 3; ++i) {
    cam.trigger();
    Frame f = ring.pop();
    auto input = (f.image - mean) / stdv;
    torch::NoGradGuard no_grad;
    auto logits = detector->forward(input.unsqueeze(0));
    float expected = f.seq == 0 ? 0.f : (scene(f.seq) - scene(f.seq - 1)).abs().mean().item<float>();
    std::cout << "frame " << f.seq << " motion " << f.motion << " (expected " << expected
              << "), detector max " << logits.max().item<float>() << "\n";
    if (std::abs(f.motion - expected) > 1e-4f)
      std::cout << "MISMATCH: frame " << f.seq << " motion score " << f.motion
                << " for a one-pixel shift (expected " << expected << ")\n";
  }
  return 0;
}
