// CASE: a block-based audio effect streams each dry block into an
//       asynchronous recorder with operator<<, then applies drive and a
//       soft clip to the same block buffer in place and refills it with
//       the next block
// SOURCE: the kind of code from real-time audio plugins that record a dry
//         tap next to the processed signal (a writer thread behind a
//         stream-like operator, a reused block buffer)
// KIND: bug
// HARM: the "dry" recording holds processed or later audio, not the input
#include <torch/torch.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

// Records blocks on a background thread so the audio callback never waits on
// the disk.
class AsyncRecorder {
 public:
  explicit AsyncRecorder(std::chrono::milliseconds disk_latency)
      : latency_(disk_latency), writer_([this] { drain(); }) {}

  friend AsyncRecorder& operator<<(AsyncRecorder& rec, const torch::Tensor& block) {
    {
      std::lock_guard<std::mutex> lock(rec.mutex_);
      rec.pending_.push_back(block);
    }
    rec.ready_.notify_one();
    return rec;
  }

  std::vector<float> close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    ready_.notify_one();
    writer_.join();
    return std::move(file_);
  }

 private:
  void drain() {
    for (;;) {
      torch::Tensor block;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return closed_ || !pending_.empty(); });
        if (pending_.empty()) return;
        block = pending_.front();
        pending_.pop_front();
      }
      std::this_thread::sleep_for(latency_);  // seek + fsync of the previous block
      auto* p = block.data_ptr<float>();
      file_.insert(file_.end(), p, p + block.numel());
    }
  }

  std::chrono::milliseconds latency_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<torch::Tensor> pending_;
  bool closed_ = false;
  std::vector<float> file_;
  std::thread writer_;
};

struct Overdrive {
  float drive = 6.f;
  void process(torch::Tensor& block) const {
    block.mul_(drive).tanh_();  // BUG(libtorch-worker-missing-clone)
  }
};

int main() {
  torch::manual_seed(11);
  const int64_t sr = 8000, block_size = 256, n_blocks = 8;
  auto t = torch::arange(block_size * n_blocks, torch::kFloat) / sr;
  auto input = 0.3 * torch::sin(2 * M_PI * 220.0 * t) + 0.01 * torch::randn({block_size * n_blocks});

  AsyncRecorder dry_tap(std::chrono::milliseconds(30));
  Overdrive fx;
  auto block = torch::empty({block_size});
  std::vector<torch::Tensor> wet;
  for (int64_t b = 0; b < n_blocks; ++b) {
    block.copy_(input.narrow(0, b * block_size, block_size));  // BUG(libtorch-worker-missing-clone)
    dry_tap << block;                                          // BUG(libtorch-worker-missing-clone)
    fx.process(block);                                         // BUG(libtorch-worker-missing-clone)
    wet.push_back(block.clone());
  }
  auto recorded = dry_tap.close();

  auto dry = torch::from_blob(recorded.data(), {(int64_t)recorded.size()}).clone();
  auto err = (dry - input).abs().max().item<float>();
  std::cout << "recorded " << dry.numel() << " dry samples, max error vs input " << err << "\n";
  if (err > 1e-6f)
    std::cout << "HARM: the dry recording differs from the input by up to " << err
              << " (first sample " << dry[0].item<float>() << ", input " << input[0].item<float>()
              << ")\n";
  return 0;
}
