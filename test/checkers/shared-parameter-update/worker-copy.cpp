// A ModuleHolder copied inside a worker's callable is reported by
// libtorch-worker-missing-clone, not here (Note [Copies in workers]).
// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch

#include <torch/torch.h>

#include <thread>

void consume(const torch::Tensor &t);

void NegativeCopyInWorker(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  std::thread t([&] {
    auto local = global;
    for (auto &p : local->parameters())
      p.add_(0.1);
  });
  consume(global->forward(x));
  t.join();
}

void NegativeOptimizerInWorker(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  std::thread t([&global] {
    auto local = global;
    torch::optim::SGD opt(local->parameters(), torch::optim::SGDOptions(0.1));
    opt.step();
  });
  consume(global->forward(x));
  t.join();
}

// The same copy outside a worker is this check's.
void PositiveCopyOutsideWorker(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  auto local = global;
  for (auto &p : local->parameters())
    p.add_(0.1);
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'add_' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  // CHECK-FIXES: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  consume(global->forward(x));
}
