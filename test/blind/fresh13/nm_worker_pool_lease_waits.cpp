// CASE: a staging-buffer pool hands out std::unique_ptr<Slot, ReturnToPool>
//       leases; each chunk's spectrogram is written into a lease and the
//       lease's tensor is passed to a std::async encoder whose
//       std::shared_future is stored in the slot, and the custom deleter
//       waits on that future before the slot goes back on the free list
// SOURCE: the kind of code in streaming ASR / audio-embedding services that
//         pool feature buffers to avoid allocations per chunk
// KIND: near-miss
// WHY-OK: a slot is recycled (and refilled) only after the encoder that
//         reads it has finished

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <future>
#include <memory>
#include <thread>
#include <vector>

class StagingPool;

struct Slot {
  torch::Tensor buffer;
  std::shared_future<float> in_flight;
};

struct ReturnToPool {
  StagingPool* pool = nullptr;
  void operator()(Slot* slot) const;
};

class StagingPool {
 public:
  using Lease = std::unique_ptr<Slot, ReturnToPool>;

  StagingPool(size_t slots, torch::IntArrayRef shape) {
    for (size_t i = 0; i < slots; ++i)
      storage_.push_back(std::make_unique<Slot>(Slot{torch::empty(shape), {}}));
    for (auto& slot : storage_) free_.push_back(slot.get());
  }

  Lease acquire() {
    Slot* slot = free_.front();
    free_.pop_front();
    return Lease(slot, ReturnToPool{this});
  }

  void give_back(Slot* slot) { free_.push_back(slot); }

 private:
  std::vector<std::unique_ptr<Slot>> storage_;
  std::deque<Slot*> free_;
};

void ReturnToPool::operator()(Slot* slot) const {
  if (slot->in_flight.valid()) slot->in_flight.wait();  // reader done before reuse
  slot->in_flight = {};
  pool->give_back(slot);
}

// Log-power spectrogram of one chunk, written into the caller's buffer.
void spectrogram_into(torch::Tensor& out, const torch::Tensor& chunk) {
  auto frames = chunk.view({out.size(0), -1});
  out.copy_(frames.pow(2).mean(1, /*keepdim=*/true).expand_as(out).log1p());
}

float encode(torch::Tensor feats) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // model latency
  return feats.mean().item<float>();
}

int main() {
  const int64_t frames = 8, bins = 4, samples = 64;
  StagingPool pool(2, {frames, bins});

  std::vector<torch::Tensor> chunks;
  for (int i = 0; i < 4; ++i)
    chunks.push_back(torch::full({samples}, 0.5f * (i + 1)));

  std::vector<std::shared_future<float>> encoded;
  std::vector<float> expected;
  for (const auto& chunk : chunks) {
    StagingPool::Lease lease = pool.acquire();
    spectrogram_into(lease->buffer, chunk);
    expected.push_back(lease->buffer.mean().item<float>());
    lease->in_flight = std::async(std::launch::async, encode, lease->buffer).share();
    encoded.push_back(lease->in_flight);
  }  // each lease goes back to the pool here, once its encoder is done

  for (size_t i = 0; i < encoded.size(); ++i) {
    float got = encoded[i].get();
    std::printf("chunk %zu: encoded energy %.4f, its features had %.4f\n", i, got, expected[i]);
    if (std::abs(got - expected[i]) > 1e-5)
      std::printf("HARM: chunk %zu was encoded from %.4f instead of %.4f\n", i, got, expected[i]);
  }
  return 0;
}
