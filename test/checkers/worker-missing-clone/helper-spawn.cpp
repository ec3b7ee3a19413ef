// A function that starts a worker with its parameter and returns without
// joining it hands the caller's argument to that worker (Note [Functions
// that start a worker with their arguments]).
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

#include <torch/torch.h>
#include <future>
#include <thread>
#include <vector>

struct PolicyImpl : torch::nn::Module {
  PolicyImpl() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(const torch::Tensor &x) { return fc(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Policy);

double score(Policy policy, const torch::Tensor &states);

// A method keeps the thread it starts in a member.
class Evaluator {
public:
  void submit(Policy policy, torch::Tensor states) {
    jobs_.emplace_back([policy, states] { score(policy, states); });
  }
  void wait() {
    for (auto &job : jobs_)
      job.join();
  }

private:
  std::vector<std::thread> jobs_;
};

void PositiveOptimizerStepsWhileEvaluating(Policy policy, Evaluator &evaluator,
                                           const torch::Tensor &states) {
  torch::optim::SGD opt(policy->parameters(), torch::optim::SGDOptions(0.1));
  evaluator.submit(policy, states);
  // CHECK-NOTES: :[[@LINE-1]]:20: warning: argument 'policy' shares its module with worker entry point 'std::thread' and the spawner updates its parameters in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-16]]:5: note: 'submit' starts this worker with it and returns without joining it
  opt.step();
  // CHECK-NOTES: :[[@LINE-1]]:7: note: 'step' updates the parameters of 'policy' in place here
  evaluator.wait();
}

// A free function returns the future of the task it starts.
std::future<torch::Tensor> lookupAsync(torch::Tensor table, torch::Tensor ids) {
  return std::async(std::launch::async, [table, ids] { return table.sum(); });
}

void PositiveTableWrittenWhileLookedUp(torch::Tensor table, const torch::Tensor &ids,
                                       const torch::Tensor &fresh) {
  auto answer = lookupAsync(table, ids);
  // CHECK-FIXES: auto answer = lookupAsync(table.clone(), ids);
  // CHECK-NOTES: :[[@LINE-2]]:29: warning: argument 'table' shares its storage with worker entry point 'std::async' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-8]]:10: note: 'lookupAsync' starts this worker with it and returns without joining it
  table.copy_(fresh);
  // CHECK-NOTES: :[[@LINE-1]]:9: note: 'copy_' writes 'table' in place here
  answer.get();
}

// Near-misses: the caller waits before the write, the helper joins its own
// worker, and the argument is a clone.
void NegativeWaitedBeforeTheStep(Policy policy, Evaluator &evaluator,
                                 const torch::Tensor &states) {
  torch::optim::SGD opt(policy->parameters(), torch::optim::SGDOptions(0.1));
  evaluator.submit(policy, states);
  evaluator.wait();
  opt.step();
}

torch::Tensor lookupNow(torch::Tensor table, torch::Tensor ids) {
  auto task = std::async(std::launch::async, [table, ids] { return table.sum(); });
  return task.get();
}

void NegativeHelperJoins(torch::Tensor table, const torch::Tensor &ids,
                         const torch::Tensor &fresh) {
  auto rows = lookupNow(table, ids);
  table.copy_(fresh);
}

void NegativeClonedArgument(torch::Tensor table, const torch::Tensor &ids,
                            const torch::Tensor &fresh) {
  auto answer = lookupAsync(table.clone(), ids);
  table.copy_(fresh);
  answer.get();
}
