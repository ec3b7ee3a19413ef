// CASE: a training step hands the raw activations to a background logger
//       thread by value, then batch-normalises the same tensor in place; the
//       logger reports the statistics of the normalised tensor
// SOURCE: https://github.com/meta-pytorch/torchrec/pull/3974 (metric snapshot
//         read by a compute thread while the update thread writes it; fixed by
//         cloning the snapshot)
// KIND: bug
// HARM: the logged mean of the raw activations is ~0 instead of the raw mean
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <future>
#include <thread>

struct StepStats {
  double mean = 0.0;
  double stddev = 0.0;
};

// Runs on the logger thread: waits until the step has been committed so that
// logging never slows the step down, then summarises what it was handed.
static void log_activation_stats(torch::Tensor acts, std::shared_future<void> step_done,
                                 std::promise<StepStats> out) {
  step_done.wait();
  StepStats s;
  s.mean = acts.mean().item<double>();
  s.stddev = acts.std().item<double>();
  out.set_value(s);
}

int main() {
  torch::manual_seed(0);
  torch::nn::Linear layer(16, 32);
  auto input = torch::randn({64, 16}) + 3.0;

  torch::NoGradGuard no_grad;
  torch::Tensor acts = layer(input).relu_();
  const double raw_mean = acts.mean().item<double>();

  std::promise<void> commit;
  std::shared_future<void> step_done = commit.get_future().share();
  std::promise<StepStats> stats_promise;
  auto stats_future = stats_promise.get_future();
  std::thread logger(log_activation_stats, acts, step_done,  // BUG(libtorch-worker-missing-clone)
                     std::move(stats_promise));

  // Normalise the activations for the next layer, in place to save memory.
  auto mean = acts.mean(0, /*keepdim=*/true);
  auto stddev = acts.std(0, /*unbiased=*/true, /*keepdim=*/true).add_(1e-5);
  acts.sub_(mean).div_(stddev);  // BUG(libtorch-worker-missing-clone)
  commit.set_value();

  StepStats s = stats_future.get();
  logger.join();

  std::printf("raw mean %.4f, logged mean %.4f\n", raw_mean, s.mean);
  if (std::fabs(s.mean - raw_mean) > 1e-3) {
    std::printf("HARM: logger saw normalised activations (mean %.4f, expected %.4f)\n", s.mean,
                raw_mean);
  }
  return 0;
}
