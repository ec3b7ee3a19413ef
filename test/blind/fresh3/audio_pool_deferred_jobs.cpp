// CASE: a speech front-end queues one std::function per audio chunk into a
//       hand-written job pool whose workers only start at flush(); each job
//       captured the reader's staging tensor, which the reader refills in
//       place for every chunk
// SOURCE: the kind of code in libtorch speech/feature front-ends that batch
//       feature jobs into their own pool; cf. "Is evaluating the network
//       thread-safe?" https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
//       (one thread writes a tensor in place while another reads it)
// KIND: bug
// HARM: every job measures the energy of the last chunk read
#include <torch/torch.h>

#include <cmath>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr int64_t kChunk = 160;  // 10 ms at 16 kHz
constexpr int kChunks = 6;

class JobPool {
 public:
  explicit JobPool(int workers) : workers_(workers) {}

  void submit(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }

  // Starts the workers and drains the queue.
  void flush() {
    std::vector<std::thread> threads;
    for (int w = 0; w < workers_; ++w) {
      threads.emplace_back([this] {
        for (;;) {
          std::function<void()> job;
          {
            std::lock_guard<std::mutex> lock(mu_);
            if (jobs_.empty()) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
          }
          job();
        }
      });
    }
    for (auto& t : threads) t.join();
  }

 private:
  int workers_;
  std::mutex mu_;
  std::deque<std::function<void()>> jobs_;
};

class ChunkReader {
 public:
  ChunkReader() : staging_(torch::empty({kChunk})) {}

  // Decodes chunk `index` of a synthetic stream into the staging buffer.
  const torch::Tensor& read(int index) {
    auto t = torch::arange(kChunk, torch::kFloat).div_(kChunk);
    staging_.copy_(torch::sin(t * (index + 1) * 6.28f) * (0.1f * (index + 1)));  // BUG(libtorch-worker-missing-clone)
    return staging_;
  }

 private:
  torch::Tensor staging_;
};

float frame_energy(const torch::Tensor& pcm) {
  return pcm.pow(2).mean().item<float>();
}

}  // namespace

int main() {
  JobPool pool(2);
  ChunkReader reader;
  std::vector<float> energy(kChunks, 0.f), expected(kChunks, 0.f);

  for (int i = 0; i < kChunks; ++i) {
    torch::Tensor chunk = reader.read(i);  // BUG(libtorch-worker-missing-clone)
    expected[i] = frame_energy(chunk);
    pool.submit([chunk, i, &energy] { energy[i] = frame_energy(chunk); });  // BUG(libtorch-worker-missing-clone)
  }
  pool.flush();

  int wrong = 0;
  for (int i = 0; i < kChunks; ++i) {
    std::cout << "chunk " << i << ": energy " << energy[i] << " expected " << expected[i] << "\n";
    if (std::fabs(energy[i] - expected[i]) > 1e-6f) ++wrong;
  }
  if (wrong) {
    std::cout << "HARM: " << wrong << " of " << kChunks
              << " feature jobs measured a later chunk (the reader refilled the staging tensor they captured)\n";
  }
  return 0;
}
