// CASE: gradients are handed to a c10::ThreadPool task that "all-reduces"
//       them (sums them into a communication buffer) while the training loop
//       has already moved on and zeroed the gradients for the next step
// SOURCE: https://github.com/pytorch/pytorch/pull/23968 (c10::ThreadPool used to
//         send tensors asynchronously) and
//         https://github.com/pytorch/pytorch/issues/37038 (no implicit
//         synchronisation of tensor writes)
// KIND: bug
// HARM: the reduced gradient norm is 0 instead of the step's gradient norm
#include <c10/core/thread_pool.h>
#include <torch/torch.h>

#include <cstdio>
#include <future>
#include <vector>

int main() {
  torch::manual_seed(8);
  torch::nn::Linear model(5, 3);
  torch::optim::SGD opt(model->parameters(), 0.1);
  c10::ThreadPool comm_pool(1);

  auto x = torch::randn({16, 5});
  auto y = torch::randn({16, 3});
  opt.zero_grad();
  torch::mse_loss(model(x), y).backward();

  std::vector<torch::Tensor> grads;
  double expected_sq = 0.0;
  for (auto& p : model->parameters()) {
    grads.push_back(p.grad());
    expected_sq += p.grad().pow(2).sum().item<double>();
  }

  std::promise<void> bucket_ready;
  auto ready = bucket_ready.get_future().share();
  std::promise<double> reduced;
  auto reduced_norm = reduced.get_future();
  comm_pool.run([grads, ready, &reduced] {  // BUG(libtorch-worker-missing-clone)
    ready.wait();  // waits for the communication bucket to be assigned
    double sq = 0.0;
    for (auto& g : grads) sq += g.pow(2).sum().item<double>();
    reduced.set_value(sq);
  });

  opt.step();
  opt.zero_grad();  // BUG(libtorch-worker-missing-clone)
  bucket_ready.set_value();

  const double got = reduced_norm.get();
  comm_pool.waitWorkComplete();
  std::printf("reduced squared grad norm %.6f, expected %.6f\n", got, expected_sq);
  if (std::abs(got - expected_sq) > 1e-9) {
    std::printf("HARM: the communication task read zeroed gradients (%.6f != %.6f)\n", got,
                expected_sq);
  }
  return 0;
}
