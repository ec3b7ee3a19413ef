// CASE: a PPO learner passes a struct of rollout tensors to a thread that
//       computes discounted returns, then clears the rollout buffers in place
//       to start collecting the next rollout
// SOURCE: https://github.com/meta-pytorch/torchrec/pull/3974 (tensors in a
//         snapshot struct shared with a compute thread; fixed by cloning)
// KIND: bug
// HARM: the returns are computed from zeroed rewards
#include <torch/torch.h>

#include <cstdio>
#include <future>
#include <thread>

struct Rollout {
  torch::Tensor rewards;  // [T]
  torch::Tensor dones;    // [T]
  torch::Tensor values;   // [T + 1]
};

static torch::Tensor discounted_returns(const Rollout& r, double gamma) {
  const int64_t T = r.rewards.size(0);
  auto ret = torch::zeros({T});
  double running = r.values[T].item<double>();
  for (int64_t t = T - 1; t >= 0; --t) {
    running = r.rewards[t].item<double>() + gamma * running * (1.0 - r.dones[t].item<double>());
    ret[t] = running;
  }
  return ret;
}

int main() {
  torch::manual_seed(9);
  const int64_t T = 8;
  Rollout buffer{torch::rand({T}), torch::zeros({T}), torch::rand({T + 1})};
  auto expected = discounted_returns(buffer, 0.99);

  std::promise<void> collecting;
  auto started = collecting.get_future().share();
  std::promise<torch::Tensor> out;
  auto returns = out.get_future();
  std::thread learner(  // BUG(libtorch-worker-missing-clone)
      [started](Rollout r, std::promise<torch::Tensor> p) {
        started.wait();  // the learner thread is scheduled after the actor resumes
        p.set_value(discounted_returns(r, 0.99));
      },
      buffer, std::move(out));

  // Actor: reset the buffers and start the next rollout.
  buffer.rewards.zero_();  // BUG(libtorch-worker-missing-clone)
  buffer.values.zero_();   // BUG(libtorch-worker-missing-clone)
  collecting.set_value();

  auto got = returns.get();
  learner.join();
  std::printf("return[0] = %.4f, expected %.4f\n", got[0].item<float>(), expected[0].item<float>());
  if (!torch::allclose(got, expected)) {
    std::printf("HARM: returns computed from the cleared rollout buffers\n");
  }
  return 0;
}
