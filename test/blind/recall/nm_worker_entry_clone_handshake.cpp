// CASE: an evaluation thread clones the shared batch buffer on entry and
//       signals the producer, which waits for that signal before refilling the
//       buffer with copy_
// SOURCE: https://discuss.pytorch.org/t/is-evaluating-the-network-thread-safe/37802
//         (copy or lock before another thread writes in place)
// KIND: near-miss
// WHY-OK: the producer's copy_ is ordered after the worker's clone by the
//         "taken" future
#include <torch/torch.h>

#include <cstdio>
#include <future>
#include <thread>

int main() {
  torch::manual_seed(2);
  torch::nn::Linear scorer(8, 1);
  auto batch_a = torch::randn({16, 8});
  auto batch_b = torch::randn({16, 8}) * 4.0;
  float expected_a;
  {
    torch::NoGradGuard g;
    expected_a = scorer(batch_a).mean().item<float>();
  }

  torch::Tensor batch = torch::empty({16, 8});
  batch.copy_(batch_a);

  std::promise<void> taken;
  auto taken_future = taken.get_future();
  std::promise<float> score;
  auto score_future = score.get_future();
  std::thread evaluator([batch, scorer, &taken, &score]() mutable {
    torch::Tensor mine = batch.clone();  // private copy before anything else
    taken.set_value();
    torch::NoGradGuard g;
    score.set_value(scorer->forward(mine).mean().item<float>());
  });

  taken_future.wait();
  batch.copy_(batch_b);  // refill for the next evaluation

  const float a = score_future.get();
  evaluator.join();
  std::printf("score a %.5f (expected %.5f)\n", a, expected_a);
  if (a != expected_a) std::printf("HARM: the evaluation scored the refilled batch\n");
  return 0;
}
