// CASE: an asynchronous vectorised environment (step_async / step_wait, as in
//       baselines' SubprocVecEnv) steps each env on its own thread, and each
//       thread writes its observation row into the env's obs_buf_; the
//       learner evaluates the critic on the tensor the last step_wait()
//       returned, overlapped with the envs stepping
// SOURCE: the kind of code in C++ RL ports (A2C/PPO runners) that overlap
//         env stepping with the critic's forward; SB3 issue reports about
//         observation buffers returned without a copy
// KIND: bug
// HARM: the value estimates for step t are computed from step t+1's
//       observations
#include <torch/torch.h>

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

namespace rl {

class CountDown {
 public:
  explicit CountDown(int n) : n_(n) {}
  void arrive() {
    std::lock_guard<std::mutex> lock(m_);
    if (--n_ == 0) cv_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return n_ <= 0; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int n_;
};

struct PointMass {
  float pos = 0.f;
  float step(float force) { return pos += 0.1f * force; }
};

template <class Env>
class AsyncVecEnv {
 public:
  AsyncVecEnv(int n, int obs_dim) : envs_(n), obs_buf_(torch::zeros({n, obs_dim})) {}

  torch::Tensor reset() {
    for (size_t i = 0; i < envs_.size(); ++i) obs_buf_[i].fill_(envs_[i].pos);
    return obs_buf_;  // BUG(libtorch-worker-missing-clone)
  }

  void step_async(const torch::Tensor& actions, CountDown* stepped) {
    for (size_t i = 0; i < envs_.size(); ++i) {
      float a = actions[i].item<float>();
      workers_.emplace_back([this, i, a, stepped] {  // BUG(libtorch-worker-missing-clone)
        float p = envs_[i].step(a);
        obs_buf_.select(0, i).copy_(torch::full({obs_buf_.size(1)}, p));  // BUG(libtorch-worker-missing-clone)
        stepped->arrive();
      });
    }
  }

  torch::Tensor step_wait() {
    for (auto& w : workers_) w.join();
    workers_.clear();
    return obs_buf_;  // BUG(libtorch-worker-missing-clone)
  }

 private:
  std::vector<Env> envs_;
  torch::Tensor obs_buf_;
  std::vector<std::thread> workers_;
};

}  // namespace rl

int main() {
  torch::manual_seed(0);
  const int n_envs = 4, obs_dim = 3;
  rl::AsyncVecEnv<rl::PointMass> venv(n_envs, obs_dim);
  torch::nn::Linear actor(obs_dim, 1), critic(obs_dim, 1);
  torch::NoGradGuard no_grad;

  auto obs = venv.reset();
  bool harmed = false;
  for (int t = 0; t < 3; ++t) {
    auto actions = torch::tanh(actor(obs)).squeeze(1) + 1.0;
    auto reference = critic(obs.clone());  // what V(s_t) should be
    rl::CountDown stepped(n_envs);
    venv.step_async(actions, &stepped);
    stepped.wait();  // the envs are faster than the critic on this box
    auto values = critic(obs);  // BUG(libtorch-worker-missing-clone)
    obs = venv.step_wait();
    if (!torch::allclose(values, reference)) {
      std::cout << "HARM: V(s_" << t << ") computed on s_" << t + 1 << ": "
                << values.squeeze(1)[0].item<float>() << " vs "
                << reference.squeeze(1)[0].item<float>() << "\n";
      harmed = true;
      break;
    }
  }
  if (!harmed) std::cout << "values match the observations they were meant for\n";
  return 0;
}
