// CASE: a prioritised replay buffer hands its priority tensor to a sampler
//       thread with std::ref so the sampler can prepare the next batch, while
//       the learner writes the new TD-error priorities into it in place
// SOURCE: https://github.com/pytorch/pytorch/issues/37038 (maintainer: tensors
//         are not thread-safe to write; do your own locking)
// KIND: bug
// HARM: the sampling distribution prepared for the current priorities is
//       computed from the learner's updated priorities
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <future>
#include <thread>

static void prepare_distribution(torch::Tensor& priorities, double alpha,
                                 std::shared_future<void> learner_yielded,
                                 std::promise<torch::Tensor> out) {
  learner_yielded.wait();  // the sampler runs while the learner is between updates
  auto p = priorities.pow(alpha);
  out.set_value(p / p.sum());
}

int main() {
  torch::manual_seed(35);
  const int64_t capacity = 32;
  auto priorities = torch::rand({capacity}) + 0.1;
  const double alpha = 0.6;
  auto expected = priorities.pow(alpha) / priorities.pow(alpha).sum();

  std::promise<void> yielded;
  auto learner_yielded = yielded.get_future().share();
  std::promise<torch::Tensor> dist_promise;
  auto dist = dist_promise.get_future();
  std::thread sampler(prepare_distribution, std::ref(priorities), alpha,  // BUG(libtorch-worker-missing-clone)
                      learner_yielded, std::move(dist_promise));

  // Learner: new |TD errors| for the batch it just trained on.
  auto batch_idx = torch::arange(0, 8);
  auto td_errors = torch::rand({8}) * 5.0;
  priorities.index_put_({batch_idx}, td_errors.abs() + 1e-3);  // BUG(libtorch-worker-missing-clone)
  yielded.set_value();

  auto got = dist.get();
  sampler.join();
  const double err = (got - expected).abs().max().item<double>();
  std::printf("max |P(i) - expected P(i)| = %.6g\n", err);
  if (err > 1e-7) std::printf("HARM: sampler's distribution came from the updated priorities\n");
  return 0;
}
