// Findings that `torchalias instrument` cannot instrument, each skipped with
// a reason that says what the user can do (instrument-skips.test).
#include <torch/torch.h>
#include <thread>

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(4, 4)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

// A hand-written update of a module whose ModuleHolder was copied.
void manualUpdate(const torch::Tensor &x) {
  Net online;
  Net frozen = online;
  for (auto &p : online->parameters())
    p.sub_(p.grad(), 0.01);
  frozen->forward(x);
}

// A worker handed a struct of tensors, written while it runs.
struct Batch {
  torch::Tensor images;
};

void consume(Batch &batch) { batch.images.sum(); }

void structToWorker() {
  Batch batch{torch::zeros({2, 2})};
  std::thread worker(consume, std::ref(batch));
  batch.images.add_(1);
  worker.join();
}
