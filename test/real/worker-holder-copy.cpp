// Ground truth: one bug, one finding, against Debian's real libtorch headers.
// A worker that updates a module through a copy of its ModuleHolder is
// libtorch-worker-missing-clone's when the spawner still uses the original,
// and libtorch-shared-parameter-update's when it joins first (Note [One
// finding for a worker's holder copy]).
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-shared-parameter-update,libtorch-worker-missing-clone %t -- -- %real_torch

#include <torch/torch.h>

#include <thread>

void consume(const torch::Tensor &t);

void PositiveRace(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  auto local = global;
  // CHECK-FIXES: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  std::thread t([local] {
    torch::NoGradGuard no_grad;
    for (auto &p : local->parameters())
      p.add_(0.1);
  });
  // CHECK-NOTES: :[[@LINE-5]]:18: warning: by-value capture 'local' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-8]]:8: note: 'local' is a copy of the ModuleHolder 'global', not of the module
  // CHECK-NOTES: :[[@LINE-4]]:9: note: 'add_' updates the parameters of 'global' in place here
  // CHECK-NOTES: :[[@LINE+1]]:11: note: the spawner uses 'global' here, before any join
  consume(global->forward(x));
  t.join();
}

void PositiveJoinedFirst(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  auto local = global;
  // CHECK-FIXES: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  std::thread t([local] {
    torch::NoGradGuard no_grad;
    for (auto &p : local->parameters())
      p.add_(0.1);
  });
  // CHECK-NOTES: :[[@LINE-7]]:16: warning: 'add_' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  // CHECK-NOTES: :[[@LINE-3]]:9: note: 'add_' updates the parameters of 'global' here
  t.join();
  consume(global->forward(x));
}
