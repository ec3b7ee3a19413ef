// One bug, one finding: a worker that updates a module through a copy of its
// ModuleHolder while the spawner still uses the original is
// libtorch-worker-missing-clone's, which reports it at the capture with notes
// at the copy, the update and the spawner's use; this check reports such a
// copy only when that check does not (Note [One finding for a worker's holder
// copy]). BOTH runs the two checks together, ALONE this check by itself.
// RUN: %check_clang_tidy -check-suffix=BOTH %s libtorch-shared-parameter-update,libtorch-worker-missing-clone %t-both -- -- %mock_torch
// RUN: %check_clang_tidy -check-suffix=ALONE %s libtorch-shared-parameter-update %t-alone -- -- %mock_torch

#include <torch/torch.h>

#include <thread>

void consume(const torch::Tensor &t);

// The copy is made inside the worker, which updates it while the spawner
// reads the original.
void PositiveCopyInWorker(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  std::thread t([&] {
    auto local = global;
    for (auto &p : local->parameters())
      p.add_(0.1);
  });
  // CHECK-NOTES-BOTH: :[[@LINE-5]]:18: warning: by-reference capture 'global' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-NOTES-BOTH: :[[@LINE-5]]:18: note: the worker first uses 'global' here, captured by reference
  // CHECK-NOTES-BOTH: :[[@LINE-6]]:10: note: 'local' is a copy of the ModuleHolder 'global', not of the module
  // CHECK-NOTES-BOTH: :[[@LINE-5]]:9: note: 'add_' updates the parameters of 'global' in place here
  // CHECK-NOTES-BOTH: :[[@LINE+4]]:11: note: the spawner uses 'global' here, before any join
  // CHECK-MESSAGES-ALONE: :[[@LINE-9]]:18: warning: 'add_' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  // CHECK-FIXES-BOTH: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  // CHECK-FIXES-ALONE: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  consume(global->forward(x));
  t.join();
}

// The copy is made by the spawner and captured by value.
void PositiveCopyCapturedByValue(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  auto local = global;
  // CHECK-FIXES-BOTH: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  // CHECK-FIXES-ALONE: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  std::thread t([local] {
    for (auto &p : local->parameters())
      p.add_(0.1);
  });
  // CHECK-NOTES-BOTH: :[[@LINE-4]]:18: warning: by-value capture 'local' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-NOTES-BOTH: :[[@LINE-8]]:8: note: 'local' is a copy of the ModuleHolder 'global', not of the module
  // CHECK-NOTES-BOTH: :[[@LINE-4]]:9: note: 'add_' updates the parameters of 'global' in place here
  // CHECK-NOTES-BOTH: :[[@LINE+2]]:11: note: the spawner uses 'global' here, before any join
  // CHECK-MESSAGES-ALONE: :[[@LINE-11]]:16: warning: 'add_' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  consume(global->forward(x));
  t.join();
}

// An optimizer built in the worker over a copy captured by reference.
void PositiveOptimizerOverCapturedCopy(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  auto local = global;
  // CHECK-FIXES-BOTH: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  // CHECK-FIXES-ALONE: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  std::thread t([&local] {
    torch::optim::SGD opt(local->parameters(), torch::optim::SGDOptions(0.1));
    opt.step();
  });
  // CHECK-NOTES-BOTH: :[[@LINE-4]]:19: warning: by-reference capture 'local' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-NOTES-BOTH: :[[@LINE-8]]:8: note: 'local' is a copy of the ModuleHolder 'global', not of the module
  // CHECK-NOTES-BOTH: :[[@LINE-4]]:9: note: 'step' updates the parameters of 'global' in place here
  // CHECK-NOTES-BOTH: :[[@LINE+2]]:11: note: the spawner uses 'global' here, before any join
  // CHECK-MESSAGES-ALONE: :[[@LINE-11]]:16: warning: 'SGD' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  consume(global->forward(x));
  t.join();
}

// The spawner joins before it reads the original: no race, so the worker
// check is quiet, and the copy that is not a model of its own is this
// check's, with either configuration.
void PositiveCopyInWorkerJoinedFirst(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  std::thread t([&] {
    auto local = global;
    for (auto &p : local->parameters())
      p.add_(0.1);
  });
  // CHECK-NOTES-BOTH: :[[@LINE-4]]:18: warning: 'add_' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  // CHECK-NOTES-BOTH: :[[@LINE-3]]:9: note: 'add_' updates the parameters of 'global' here
  // CHECK-MESSAGES-ALONE: :[[@LINE-6]]:18: warning: 'add_' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  // CHECK-FIXES-BOTH: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  // CHECK-FIXES-ALONE: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  t.join();
  consume(global->forward(x));
}

// The worker reads its copy and nobody updates it: nothing to report.
void NegativeCopyOnlyRead(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  auto local = global;
  std::thread t([local, x]() mutable { consume(local->forward(x)); });
  consume(global->forward(x));
  t.join();
}

// The same copy outside a worker is this check's.
void PositiveCopyOutsideWorker(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  auto local = global;
  for (auto &p : local->parameters())
    p.add_(0.1);
  // CHECK-NOTES-BOTH: :[[@LINE-3]]:16: warning: 'add_' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  // CHECK-NOTES-BOTH: :[[@LINE-2]]:7: note: 'add_' updates the parameters of 'global' here
  // CHECK-MESSAGES-ALONE: :[[@LINE-5]]:16: warning: 'add_' updates the parameters of 'global', and 'local' is a copy of its ModuleHolder, not of the module: 'local' changes with every update [libtorch-shared-parameter-update]
  // CHECK-FIXES-BOTH: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  // CHECK-FIXES-ALONE: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
  consume(global->forward(x));
}
