// CASE: a staging-buffer pool hands out std::unique_ptr<torch::Tensor,
//       ReturnToPool> leases whose custom deleter puts the buffer back on a
//       FIFO free list; each chunk's spectrogram is written into a lease and
//       `*lease` is passed to a std::async encoder that starts when the
//       request's chunks are all queued, so the recycled buffers have been
//       refilled by later chunks when the encoders read them
// SOURCE: the kind of code in streaming ASR / audio-embedding services that
//         pool feature buffers to avoid allocations per chunk
// KIND: bug
// HARM: chunk 0 and chunk 1 are encoded with the energies of chunks 2 and 3

#include <torch/torch.h>

#include <cstdio>
#include <deque>
#include <future>
#include <memory>
#include <vector>

class StagingPool;

struct ReturnToPool {
  StagingPool* pool = nullptr;
  void operator()(torch::Tensor* buffer) const;
};

class StagingPool {
 public:
  using Lease = std::unique_ptr<torch::Tensor, ReturnToPool>;

  StagingPool(size_t slots, torch::IntArrayRef shape) {
    for (size_t i = 0; i < slots; ++i)
      storage_.push_back(std::make_unique<torch::Tensor>(torch::empty(shape)));
    for (auto& slot : storage_) free_.push_back(slot.get());
  }

  Lease acquire() {
    torch::Tensor* slot = free_.front();
    free_.pop_front();
    return Lease(slot, ReturnToPool{this});
  }

  void give_back(torch::Tensor* slot) { free_.push_back(slot); }

 private:
  std::vector<std::unique_ptr<torch::Tensor>> storage_;
  std::deque<torch::Tensor*> free_;
};

void ReturnToPool::operator()(torch::Tensor* buffer) const { pool->give_back(buffer); }

// Log-power spectrogram of one chunk, written into the caller's buffer.
void spectrogram_into(torch::Tensor& out, const torch::Tensor& chunk) {
  auto frames = chunk.view({out.size(0), -1});
  out.copy_(frames.pow(2).mean(1, /*keepdim=*/true).expand_as(out).log1p());  // BUG(libtorch-worker-missing-clone)
}

float encode(torch::Tensor feats, std::shared_future<void> go) {
  go.wait();  // the encoder batches a whole request before it runs
  return feats.mean().item<float>();
}

int main() {
  const int64_t frames = 8, bins = 4, samples = 64;
  StagingPool pool(2, {frames, bins});

  std::vector<torch::Tensor> chunks;
  for (int i = 0; i < 4; ++i)
    chunks.push_back(torch::full({samples}, 0.5f * (i + 1)));

  std::promise<void> start;
  std::shared_future<void> go = start.get_future().share();
  std::vector<std::future<float>> encoded;
  std::vector<float> expected;
  for (const auto& chunk : chunks) {
    StagingPool::Lease lease = pool.acquire();  // BUG(libtorch-worker-missing-clone)
    spectrogram_into(*lease, chunk);  // BUG(libtorch-worker-missing-clone)
    expected.push_back(lease->mean().item<float>());
    encoded.push_back(std::async(std::launch::async, encode, *lease, go));  // BUG(libtorch-worker-missing-clone)
  }  // each lease goes back to the pool here
  start.set_value();

  bool harmed = false;
  for (size_t i = 0; i < encoded.size(); ++i) {
    float got = encoded[i].get();
    std::printf("chunk %zu: encoded energy %.4f, its features had %.4f\n", i, got, expected[i]);
    if (!harmed && std::abs(got - expected[i]) > 1e-5) {
      std::printf("HARM: chunk %zu was encoded from %.4f, but its spectrogram was "
                  "%.4f (the pooled buffer was refilled by a later chunk)\n",
                  i, got, expected[i]);
      harmed = true;
    }
  }
  return 0;
}
