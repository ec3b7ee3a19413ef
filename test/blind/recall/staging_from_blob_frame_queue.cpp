// CASE: a capture thread wraps its single staging buffer with
//       torch::from_blob, pushes the tensor onto a queue for the inference
//       thread, and decodes the next frame into the same memory
// SOURCE: https://github.com/mhubii/libtorch_custom_dataset/issues/1 (from_blob
//         does not own or copy the memory it wraps; the answer is clone())
// KIND: bug
// HARM: the consumer sees three copies of the last frame
#include <torch/torch.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

template <class T>
class BlockingQueue {
 public:
  void push(T v) {
    {
      std::lock_guard<std::mutex> l(m_);
      q_.push(std::move(v));
    }
    cv_.notify_one();
  }
  T pop() {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [this] { return !q_.empty(); });
    T v = std::move(q_.front());
    q_.pop();
    return v;
  }
  size_t size() {
    std::lock_guard<std::mutex> l(m_);
    return q_.size();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::queue<T> q_;
};

constexpr int H = 6, W = 8, C = 3;

// Simulated camera: frame k is a flat image with value k + 1.
static void grab_frame(std::vector<float>& staging, int k) {
  std::fill(staging.begin(), staging.end(), static_cast<float>(k + 1));
}

int main() {
  BlockingQueue<torch::Tensor> frames;
  std::vector<float> staging(H * W * C);

  std::thread capture([&] {
    for (int k = 0; k < 3; ++k) {
      grab_frame(staging, k);  // BUG(libtorch-worker-missing-clone)
      auto t = torch::from_blob(staging.data(), {H, W, C}, torch::kFloat32);
      frames.push(t.permute({2, 0, 1}));  // BUG(libtorch-worker-missing-clone)
    }
  });
  capture.join();  // the consumer only starts once the ring of frames is primed

  std::vector<float> seen;
  std::thread infer([&] {
    for (int k = 0; k < 3; ++k) seen.push_back(frames.pop().mean().item<float>());
  });
  infer.join();

  std::printf("consumer saw frame means %.1f %.1f %.1f (expected 1 2 3)\n", seen[0], seen[1],
              seen[2]);
  if (seen[0] != 1.0f) {
    std::printf("HARM: frame 0 was overwritten by the later capture (mean %.1f)\n", seen[0]);
  }
  return 0;
}
