// CASE: feature extraction writes into a staging tensor leased from a pool by
//       an RAII Lease; the tensor is handed to an std::async upload task, and
//       when the lease goes out of scope its destructor returns the buffer to
//       the pool, which scrubs it with zero_() while the upload still has to
//       read it
// SOURCE: recommender feature pipelines in libtorch that push embeddings to a
//         feature store over a connection that becomes ready asynchronously
//         (pooled, reused staging buffers); cf. https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
// KIND: bug
// HARM: the feature store receives all-zero shards (checksum 0)
#include <torch/torch.h>

#include <future>
#include <iostream>
#include <mutex>
#include <vector>

class StagingPool {
 public:
  StagingPool(int n, std::vector<int64_t> shape) {
    for (int i = 0; i < n; ++i) free_.push_back(torch::empty(shape));
  }
  torch::Tensor acquire() {
    std::lock_guard<std::mutex> l(m_);
    auto t = free_.back();
    free_.pop_back();
    return t;
  }
  void release(torch::Tensor t) {
    t.zero_();  // BUG(libtorch-worker-missing-clone)
    std::lock_guard<std::mutex> l(m_);
    free_.push_back(std::move(t));
  }

 private:
  std::mutex m_;
  std::vector<torch::Tensor> free_;
};

class Lease {
 public:
  explicit Lease(StagingPool& pool) : pool_(pool), buf_(pool.acquire()) {}
  ~Lease() { pool_.release(buf_); }  // BUG(libtorch-worker-missing-clone)
  Lease(const Lease&) = delete;
  torch::Tensor& get() { return buf_; }

 private:
  StagingPool& pool_;
  torch::Tensor buf_;
};

struct FeatureStoreClient {
  std::promise<void> handshake;
  std::shared_future<void> ready = handshake.get_future().share();
  float upload(const torch::Tensor& shard) const {
    ready.wait();
    return shard.sum().item<float>();  // BUG(libtorch-worker-missing-clone)
  }
};

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential tower(torch::nn::Linear(12, 32), torch::nn::ReLU(), torch::nn::Linear(32, 8));
  StagingPool pool(4, {16, 8});
  FeatureStoreClient client;
  std::vector<std::future<float>> acks;
  std::vector<float> sent;

  for (int shard = 0; shard < 2; ++shard) {
    Lease lease(pool);
    {
      torch::NoGradGuard no_grad;
      lease.get().copy_(tower->forward(torch::randn({16, 12})));
    }
    sent.push_back(lease.get().sum().item<float>());
    acks.push_back(std::async(std::launch::async, [&client, t = lease.get()] {  // BUG(libtorch-worker-missing-clone)
      return client.upload(t);
    }));
  }
  client.handshake.set_value();

  for (size_t i = 0; i < acks.size(); ++i) {
    float got = acks[i].get();
    std::cout << "shard " << i << " checksum sent " << sent[i] << " stored " << got << "\n";
    if (std::abs(got - sent[i]) > 1e-3f)
      std::cout << "HARM: shard " << i << " stored with checksum " << got << " instead of " << sent[i] << "\n";
  }
  return 0;
}
