// CASE: a vectorised environment returns its reused observation buffer from
//       step(); the actor records each observation handle in an asynchronous
//       episode writer whose I/O thread is a small state machine (Idle ->
//       Collecting -> Serialising -> Closed) that serialises the pending
//       frames after a flush request, while the environment keeps writing
//       the buffer
// SOURCE: the kind of code in C++ RL actors (gym-style vector envs that
//         reuse obs buffers, trajectory writers on a background thread)
// KIND: bug
// HARM: the frames of a flush are stored with the observation of a later step

#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

class VecEnv {
 public:
  VecEnv(int64_t envs, int64_t obs_dim) : obs_buf_(torch::zeros({envs, obs_dim})) {}
  const torch::Tensor& step(int64_t t) {
    // Physics stand-in: column 0 of every observation is the step counter.
    obs_buf_.copy_(torch::full_like(obs_buf_, static_cast<float>(t)) +  // BUG(libtorch-worker-missing-clone)
                   torch::arange(obs_buf_.size(1), torch::kFloat));
    return obs_buf_;
  }

 private:
  torch::Tensor obs_buf_;
};

class AsyncEpisodeWriter {
  enum class Phase { Idle, Collecting, Serialising, Closed };
  struct Frame {
    int64_t t;
    torch::Tensor obs;
  };

 public:
  AsyncEpisodeWriter() : io_([this] { run(); }) {}
  ~AsyncEpisodeWriter() { close(); }

  void record(int64_t t, const torch::Tensor& obs) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back(Frame{t, obs});  // BUG(libtorch-worker-missing-clone)
    if (phase_ == Phase::Idle) phase_ = Phase::Collecting;
  }

  void request_flush() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (phase_ == Phase::Collecting) phase_ = Phase::Serialising;
    }
    cv_.notify_all();
  }

  // Flushes what is left, waits for the I/O thread and stops it.
  void close() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (phase_ == Phase::Closed) return;
    cv_.wait(lock, [this] { return phase_ != Phase::Serialising; });
    if (phase_ == Phase::Collecting) {
      phase_ = Phase::Serialising;
      cv_.notify_all();
      cv_.wait(lock, [this] { return phase_ == Phase::Idle; });
    }
    phase_ = Phase::Closed;
    cv_.notify_all();
    lock.unlock();
    io_.join();
  }

  std::vector<std::pair<int64_t, float>> index() {
    std::lock_guard<std::mutex> lock(mutex_);
    return index_;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return phase_ == Phase::Serialising || phase_ == Phase::Closed; });
      if (phase_ == Phase::Closed) return;
      std::vector<Frame> batch;
      batch.swap(pending_);
      lock.unlock();
      for (const Frame& f : batch) {
        std::ostringstream blob;
        torch::save(f.obs, blob);
        float key = f.obs.select(1, 0).mean().item<float>();
        std::lock_guard<std::mutex> guard(mutex_);
        index_.push_back({f.t, key});
      }
      lock.lock();
      phase_ = pending_.empty() ? Phase::Idle : Phase::Collecting;
      cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  Phase phase_ = Phase::Idle;
  std::vector<Frame> pending_;
  std::vector<std::pair<int64_t, float>> index_;
  std::thread io_;
};

int main() {
  const int64_t envs = 4, obs_dim = 6, horizon = 8, flush_every = 4;
  VecEnv env(envs, obs_dim);
  AsyncEpisodeWriter writer;
  for (int64_t t = 0; t < horizon; ++t) {
    const torch::Tensor& obs = env.step(t);
    writer.record(t, obs);  // BUG(libtorch-worker-missing-clone)
    if ((t + 1) % flush_every == 0) writer.request_flush();
  }
  writer.close();

  bool harmed = false;
  for (const auto& [t, stored] : writer.index()) {
    std::printf("frame %lld stored with step %.0f\n", static_cast<long long>(t), stored);
    if (!harmed && stored != static_cast<float>(t)) {
      std::printf("HARM: frame %lld was written with the observation of step %.0f\n",
                  static_cast<long long>(t), stored);
      harmed = true;
    }
  }
  return 0;
}
