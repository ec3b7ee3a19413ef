// Three sites that torchalias's clang-tidy checks flag, each validated when
// the program runs. Run with TORCHALIAS_MODE=warn TORCHALIAS_REPORT=r.jsonl.
#include <torchalias/torchalias.h>

#include <torch/torch.h>

#include <iostream>
#include <thread>

// libtorch-inplace-on-view: `head` is a view of the caller's tensor, so the
// division writes through into it.
void normalise_head(const torch::Tensor &batch) {
  auto head = batch.narrow(0, 0, 2);
  TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(head);
  head.div_(head.norm());
}

// libtorch-inplace-on-view, dismissed: reshape() of a transposed tensor
// copies, so this write reaches nobody.
void scale_flat(const torch::Tensor &matrix) {
  auto flat = matrix.t().reshape({-1});
  TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(flat);
  flat.mul_(2);
}

// libtorch-shared-parameter-update: one Linear registered twice.
struct TiedImpl : torch::nn::Module {
  TiedImpl() : shared(torch::nn::Linear(8, 8)) {
    register_module("encoder", shared);
    register_module("decoder", shared);
  }
  torch::nn::Linear shared;
};
TORCH_MODULE(Tied);

// libtorch-worker-missing-clone: the worker scales its argument in place.
void augment(torch::Tensor batch) { batch.mul_(0.5); }

int main() {
  auto batch = torch::ones({4, 8});
  normalise_head(batch);
  scale_flat(torch::ones({3, 5}));

  Tied model;
  TORCHALIAS_VALIDATE_PARAMETERS(model);
  torch::optim::SGD optimizer(torchalias::unique_parameters(model),
                              torch::optim::SGDOptions(0.1));

  {
    TORCHALIAS_WORKER_GUARD(guard, batch);
    std::thread worker(augment, batch); // shared, not copied
    worker.join();
    guard.verify();
  }
  {
    TORCHALIAS_WORKER_GUARD(guard, batch);
    auto args = torchalias::isolate_args(batch); // the fix-it's form
    std::thread worker(augment, std::get<0>(args));
    worker.join();
    guard.verify();
  }
  const auto stats = torchalias::current_stats();
  std::cout << "runtime_demo: " << stats.checks << " checks, "
            << stats.confirmed << " confirmed\n";
  return 0;
}
