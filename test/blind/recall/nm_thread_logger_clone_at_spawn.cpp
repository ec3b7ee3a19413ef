// CASE: the background activation logger is handed a clone of the
//       activations, so normalising the original in place afterwards cannot
//       change what it reports
// SOURCE: https://github.com/meta-pytorch/torchrec/pull/3974 (the fix: clone
//         tensors when creating the snapshot handed to the compute thread)
// KIND: near-miss
// WHY-OK: the logger thread owns its own storage; the in-place normalisation
//         writes a tensor the thread never sees
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <future>
#include <thread>

static void log_activation_stats(torch::Tensor acts, std::shared_future<void> step_done,
                                 std::promise<double> out) {
  step_done.wait();
  out.set_value(acts.mean().item<double>());
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
  std::promise<double> mean_promise;
  auto logged = mean_promise.get_future();
  std::thread logger(log_activation_stats, acts.clone(), step_done, std::move(mean_promise));

  auto mean = acts.mean(0, /*keepdim=*/true);
  auto stddev = acts.std(0, /*unbiased=*/true, /*keepdim=*/true).add_(1e-5);
  acts.sub_(mean).div_(stddev);
  commit.set_value();

  const double got = logged.get();
  logger.join();
  std::printf("raw mean %.4f, logged mean %.4f\n", raw_mean, got);
  if (std::fabs(got - raw_mean) > 1e-6) std::printf("HARM: logger saw normalised activations\n");
  return 0;
}
