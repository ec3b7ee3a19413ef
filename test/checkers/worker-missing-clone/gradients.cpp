// Gradients handed to a worker are the gradient tensors themselves: the
// spawner's zero_grad() zeroes what the worker reads (Note [Gradients handed
// to a worker]).
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <c10/core/thread_pool.h>
#include <torch/torch.h>

#include <thread>
#include <vector>

void consume(const torch::Tensor &t);

// An all-reduce task reads the gradients the optimizer then zeroes.
void PositiveOptimizerZeroGrad(torch::nn::Linear &model, c10::ThreadPool &pool) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  pool.run([grads] {
    for (auto &g : grads)
      consume(g);
  });
  // CHECK-NOTES: :[[@LINE-4]]:13: warning: by-value capture 'grads' holds tensors that share their storage with worker entry point 'c10::ThreadPool::run' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  opt.step();
  opt.zero_grad();
  // CHECK-NOTES: :[[@LINE-1]]:7: note: 'zero_grad' zeroes the gradients 'grads' holds in place here
}

// One gradient, and the module's own zero_grad().
void PositiveModuleZeroGrad(torch::nn::Linear &model) {
  auto g = model->weight.grad();
  std::thread logger([g] { consume(g); });
  // CHECK-FIXES: std::thread logger([g = g.clone()] { consume(g); });
  // CHECK-NOTES: :[[@LINE-2]]:23: warning: by-value capture 'g' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
  model->zero_grad();
  // CHECK-NOTES: :[[@LINE-1]]:10: note: 'zero_grad' zeroes the gradients 'g' holds in place here
  logger.join();
}

// Negative: the gradients are reset to none, not written.
void NegativeSetToNone(torch::nn::Linear &model) {
  auto g = model->weight.grad();
  std::thread logger([g] { consume(g); });
  model->zero_grad(/*set_to_none=*/true);
  logger.join();
}

// Negative: the worker is handed the parameters, not their gradients.
void NegativeParametersNotGradients(torch::nn::Linear &model) {
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  auto w = model->weight;
  std::thread reader([w] { consume(w); });
  opt.zero_grad();
  reader.join();
}

// Negative: another module's gradients are zeroed.
void NegativeOtherModule(torch::nn::Linear &model, torch::nn::Linear &other) {
  auto g = model->weight.grad();
  std::thread logger([g] { consume(g); });
  other->zero_grad();
  logger.join();
}

// Negative: joined first, or the gradients cloned.
void NegativeJoinedOrCloned(torch::nn::Linear &model) {
  auto g = model->weight.grad();
  std::thread logger([g] { consume(g); });
  logger.join();
  model->zero_grad();
  auto copy = model->weight.grad().clone();
  std::thread later([copy] { consume(copy); });
  model->zero_grad();
  later.join();
}
