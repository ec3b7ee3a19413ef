// CASE: a speech front-end queues one std::function per audio chunk into a
//       job pool that starts its workers at flush(), and refills one staging
//       tensor per chunk; the lambda's capture initialiser clones the
//       staging tensor, so each job owns its chunk
// SOURCE: the kind of code in libtorch speech/feature front-ends that batch
//       feature jobs into their own pool
// KIND: near-miss
// WHY-OK: `chunk = reader.read(i).clone()` copies the values before the
//       hand-off; later refills of the staging tensor do not reach the jobs
#include <torch/torch.h>

#include <cmath>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr int64_t kChunk = 160;
constexpr int kChunks = 6;

class JobPool {
 public:
  explicit JobPool(int workers) : workers_(workers) {}
  void submit(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
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
  const torch::Tensor& read(int index) {
    auto t = torch::arange(kChunk, torch::kFloat).div_(kChunk);
    staging_.copy_(torch::sin(t * (index + 1) * 6.28f) * (0.1f * (index + 1)));
    return staging_;
  }

 private:
  torch::Tensor staging_;
};

float frame_energy(const torch::Tensor& pcm) { return pcm.pow(2).mean().item<float>(); }

}  // namespace

int main() {
  JobPool pool(2);
  ChunkReader reader;
  std::vector<float> energy(kChunks, 0.f), expected(kChunks, 0.f);

  for (int i = 0; i < kChunks; ++i) {
    expected[i] = frame_energy(reader.read(i));
    pool.submit([chunk = reader.read(i).clone(), i, &energy] { energy[i] = frame_energy(chunk); });
  }
  pool.flush();

  int wrong = 0;
  for (int i = 0; i < kChunks; ++i) {
    std::cout << "chunk " << i << ": energy " << energy[i] << " expected " << expected[i] << "\n";
    if (std::fabs(energy[i] - expected[i]) > 1e-6f) ++wrong;
  }
  if (wrong) std::cout << "HARM: " << wrong << " feature jobs measured another chunk\n";
  return 0;
}
