// CASE: a background prefetcher kept in a std::optional<std::thread> hands
//       out its staging tensor by handle assignment (`current = next_`) and
//       at once starts the next prefetch, whose thread refills `next_` with
//       copy_ while the trainer still reads the batch it took
// SOURCE: the kind of double-buffer prefetcher written by hand in C++ RL and
//         vision trainers that "saves an allocation" by keeping one buffer
// KIND: bug
// HARM: the per-batch feature mean logged after the step is the next batch's

#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

namespace data {

// Stand-in for a decoder that reads shard `index` from disk.
torch::Tensor load_batch(int64_t index, int64_t batch, int64_t dim) {
  return torch::full({batch, dim}, static_cast<float>(index)) +
         0.01 * torch::arange(dim, torch::kFloat).unsqueeze(0);
}

class Prefetcher {
 public:
  Prefetcher(int64_t batch, int64_t dim)
      : batch_(batch), dim_(dim), next_(torch::empty({batch, dim})) {}

  ~Prefetcher() {
    if (worker_ && worker_->joinable()) worker_->join();
  }

  void start(int64_t index) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_ = false;
    }
    worker_.emplace([this, index] {  // BUG(libtorch-worker-missing-clone)
      torch::Tensor decoded = load_batch(index, batch_, dim_);
      next_.copy_(decoded);  // BUG(libtorch-worker-missing-clone)
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ready_ = true;
      }
      cv_.notify_all();
    });
  }

  // Returns the prefetched batch and starts decoding the following one.
  torch::Tensor take(int64_t following) {
    wait_ready();
    worker_->join();
    torch::Tensor current = next_;  // BUG(libtorch-worker-missing-clone)
    start(following);
    return current;
  }

  // Blocks until the in-flight prefetch is done.
  void wait_ready() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return ready_; });
  }

 private:
  int64_t batch_, dim_;
  torch::Tensor next_;
  std::optional<std::thread> worker_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool ready_ = false;
};

}  // namespace data

int main() {
  torch::manual_seed(0);
  const int64_t batch = 16, dim = 8, steps = 3;
  torch::nn::Linear model(dim, 1);
  torch::optim::SGD opt(model->parameters(), 0.01);

  data::Prefetcher loader(batch, dim);
  loader.start(0);
  bool harmed = false;
  for (int64_t step = 0; step < steps; ++step) {
    torch::Tensor x = loader.take(step + 1);
    // In production decoding a shard takes a few ms and finishes during the
    // forward; wait for it here so that the run shows the same interleaving
    // every time.
    loader.wait_ready();

    opt.zero_grad();
    torch::Tensor loss = model->forward(x).pow(2).mean();
    loss.backward();
    opt.step();

    // Log the statistics of the batch this step trained on.
    float logged = x.mean().item<float>();
    float expected = data::load_batch(step, batch, dim).mean().item<float>();
    std::printf("step %lld: logged batch mean %.3f (shard %lld has %.3f)\n",
                static_cast<long long>(step), logged,
                static_cast<long long>(step), expected);
    if (!harmed && std::abs(logged - expected) > 1e-3) {
      std::printf("HARM: step %lld logged batch mean %.3f, but the batch it "
                  "took had mean %.3f (the prefetcher refilled it)\n",
                  static_cast<long long>(step), logged, expected);
      harmed = true;
    }
  }
  return 0;
}
