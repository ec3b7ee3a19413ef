// CASE: a background prefetcher kept in a std::optional<std::thread> with two
//       staging tensors: take() joins the worker, swaps front and back with
//       std::swap, returns the front and starts refilling the back, so the
//       thread never writes the batch the trainer holds during its step
// SOURCE: the kind of double-buffer prefetcher written by hand in C++ RL and
//         vision trainers
// KIND: near-miss
// WHY-OK: the worker only writes back_, and the batch handed out (front_)
//         is not touched again until the following take(), after the step

#include <torch/torch.h>

#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace data {

// Stand-in for a decoder that reads shard `index` from disk.
torch::Tensor load_batch(int64_t index, int64_t batch, int64_t dim) {
  return torch::full({batch, dim}, static_cast<float>(index)) +
         0.01 * torch::arange(dim, torch::kFloat).unsqueeze(0);
}

class DoubleBufferedPrefetcher {
 public:
  DoubleBufferedPrefetcher(int64_t batch, int64_t dim)
      : batch_(batch), dim_(dim), front_(torch::empty({batch, dim})), back_(torch::empty({batch, dim})) {}

  ~DoubleBufferedPrefetcher() {
    if (worker_ && worker_->joinable()) worker_->join();
  }

  void start(int64_t index) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_ = false;
    }
    worker_.emplace([this, index] {
      torch::Tensor decoded = load_batch(index, batch_, dim_);
      back_.copy_(decoded);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ready_ = true;
      }
      cv_.notify_all();
    });
  }

  // Returns the prefetched batch (valid until the next take()) and starts
  // decoding the following one into the other buffer.
  torch::Tensor take(int64_t following) {
    wait_ready();
    worker_->join();
    std::swap(front_, back_);
    start(following);
    return front_;
  }

  void wait_ready() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return ready_; });
  }

 private:
  int64_t batch_, dim_;
  torch::Tensor front_, back_;
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

  data::DoubleBufferedPrefetcher loader(batch, dim);
  loader.start(0);
  for (int64_t step = 0; step < steps; ++step) {
    torch::Tensor x = loader.take(step + 1);
    // Let the next prefetch finish during the step, as it does in production.
    loader.wait_ready();

    opt.zero_grad();
    torch::Tensor loss = model->forward(x).pow(2).mean();
    loss.backward();
    opt.step();

    float logged = x.mean().item<float>();
    float expected = data::load_batch(step, batch, dim).mean().item<float>();
    std::printf("step %lld: logged batch mean %.3f (shard %lld has %.3f)\n",
                static_cast<long long>(step), logged, static_cast<long long>(step), expected);
    if (std::abs(logged - expected) > 1e-3)
      std::printf("HARM: step %lld logged batch mean %.3f instead of %.3f\n",
                  static_cast<long long>(step), logged, expected);
  }
  return 0;
}
