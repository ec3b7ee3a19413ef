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

// An optimizer step between the forward that saved the weights and the
// backward that needs them: autograd's version check confirms it at run time.
void stepBeforeBackward(const torch::Tensor &x) {
  Net model;
  torch::optim::SGD opt(model->parameters(), 0.1);
  auto first = model->forward(x).sum();
  auto second = model->forward(x).sum();
  first.backward();
  opt.step();
  second.backward();
}

// A record of handles returned where a copy was meant: no write at the site.
class RunningLoss {
public:
  struct Snapshot {
    torch::Tensor sum;
  };
  void update(const torch::Tensor &losses) { sum_.add_(losses.sum()); }
  Snapshot snapshot() const { return Snapshot{sum_}; }

private:
  torch::Tensor sum_ = torch::zeros({});
};

// A view of part of a tensor read after the tensor was written in place: a
// read, not a write through the view.
torch::Tensor staleOldest(const torch::Tensor &frame) {
  auto frames = torch::zeros({4, 8});
  auto oldest = frames.select(0, 0);
  frames.copy_(frame.expand({4, 8}));
  return oldest;
}
