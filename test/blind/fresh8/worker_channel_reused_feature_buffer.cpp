// CASE: an image-retrieval indexer runs on its own thread and receives shards
//       through a Go-style Channel<T> class template; the extractor embeds
//       each batch into one member output buffer and sends that buffer,
//       refilling it for the next batch
// SOURCE: the kind of code in libtorch retrieval services (embedding workers
//       feeding an ANN index builder through a blocking channel; output
//       buffers reused to avoid allocation)
// KIND: bug
// HARM: every shard in the index holds the last batch's vectors, so a query
//       with image 0's embedding retrieves an image from the last batch
#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace util {

template <typename T>
class Channel {
 public:
  void send(T value) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(value));
    }
    cv_.notify_one();
  }

  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

  bool recv(T& out) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return false;
    out = std::move(queue_.front());
    queue_.pop_front();
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> queue_;
  bool closed_ = false;
};

}  // namespace util

namespace retrieval {

struct Shard {
  int64_t first_id = 0;
  torch::Tensor vectors;
};

class Extractor {
 public:
  Extractor(int64_t batch, int64_t dim)
      : net_(torch::nn::Linear(3 * 16 * 16, dim)), feats_(torch::empty({batch, dim})) {}

  const torch::Tensor& embed(const torch::Tensor& images) {
    torch::NoGradGuard no_grad;
    const auto z = net_(images.flatten(1));
    feats_.copy_(torch::nn::functional::normalize(  // BUG(libtorch-worker-missing-clone)
        z, torch::nn::functional::NormalizeFuncOptions().dim(1)));
    return feats_;  // BUG(libtorch-worker-missing-clone)
  }

  torch::Tensor embed_fresh(const torch::Tensor& images) {
    torch::NoGradGuard no_grad;
    return torch::nn::functional::normalize(
        net_(images.flatten(1)), torch::nn::functional::NormalizeFuncOptions().dim(1));
  }

 private:
  torch::nn::Linear net_;
  torch::Tensor feats_;
};

class IndexBuilder {
 public:
  explicit IndexBuilder(util::Channel<Shard>& inbox)
      : inbox_(inbox), worker_([this] { run(); }) {}
  ~IndexBuilder() {
    if (worker_.joinable()) worker_.join();
  }

  void wait() { worker_.join(); }

  int64_t nearest(const torch::Tensor& query) const {
    return index_.mv(query).argmax().item<int64_t>();
  }

 private:
  void run() {
    std::vector<Shard> shards;
    Shard shard;
    while (inbox_.recv(shard)) shards.push_back(shard);
    std::vector<torch::Tensor> parts;
    for (const auto& s : shards) parts.push_back(s.vectors);
    index_ = torch::cat(parts);  // built once the stream is closed
  }

  util::Channel<Shard>& inbox_;
  torch::Tensor index_;
  std::thread worker_;
};

}  // namespace retrieval

int main() {
  torch::manual_seed(11);
  constexpr int64_t kBatch = 4;
  const auto images = torch::rand({3 * kBatch, 3, 16, 16});

  util::Channel<retrieval::Shard> channel;
  retrieval::IndexBuilder builder(channel);
  retrieval::Extractor extractor(kBatch, 32);

  for (int64_t b = 0; b < 3; ++b) {
    const auto batch = images.narrow(0, b * kBatch, kBatch);
    channel.send({b * kBatch, extractor.embed(batch)});  // BUG(libtorch-worker-missing-clone)
  }
  channel.close();
  builder.wait();

  const auto query = extractor.embed_fresh(images.narrow(0, 0, 1)).squeeze(0);
  const auto hit = builder.nearest(query);
  std::printf("query image 0 -> nearest indexed id %ld\n", static_cast<long>(hit));
  if (hit != 0) {
    std::printf("HARM: image 0's own embedding retrieves id %ld: the index holds the "
                "refilled buffer's vectors\n",
                static_cast<long>(hit));
  }
  return 0;
}
