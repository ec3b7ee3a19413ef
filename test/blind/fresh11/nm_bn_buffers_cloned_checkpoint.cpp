// CASE: a classifier trainer snapshots BatchNorm running statistics for an
//       asynchronous checkpoint thread, cloning each buffer into a
//       std::vector<std::pair<std::string, torch::Tensor>> before the thread
//       starts; training (and BatchNorm's in-place running-stat updates)
//       continues while the writer waits for its disk quota
// SOURCE: the kind of code in vision training loops with asynchronous
//         checkpointing of module state
// KIND: near-miss
// WHY-OK: the thread owns clones; the next forward updates the module's
//         buffers, not the snapshot
#include <torch/torch.h>
#include <future>
#include <iostream>
#include <thread>
#include <utility>
#include <vector>

namespace vision {

struct NetImpl : torch::nn::Module {
  NetImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).padding(1)));
    bn = register_module("bn", torch::nn::BatchNorm2d(4));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::relu(bn->forward(conv->forward(x))).mean({2, 3});
  }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
};
TORCH_MODULE(Net);

using BufferSnapshot = std::vector<std::pair<std::string, torch::Tensor>>;

BufferSnapshot snapshot_buffers(torch::nn::Module& m) {
  torch::NoGradGuard ng;
  BufferSnapshot snap;
  for (const auto& item : m.named_buffers()) snap.emplace_back(item.key(), item.value().clone());
  return snap;
}

std::thread checkpoint_async(BufferSnapshot snap, std::shared_future<void> quota,
                             std::promise<double> out) {
  return std::thread([snap = std::move(snap), quota, out = std::move(out)]() mutable {
    quota.wait();
    for (const auto& [name, t] : snap)
      if (name == "bn.running_mean") out.set_value(t.sum().item<double>());
  });
}

}  // namespace vision

int main() {
  torch::manual_seed(0);
  vision::Net net;
  net->train();
  torch::optim::SGD opt(net->parameters(), 0.1);
  std::promise<void> quota;
  auto quota_f = quota.get_future().share();
  auto step = [&](double shift) {
    auto loss = net->forward(torch::randn({8, 3, 6, 6}) + shift).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
  };

  step(0.0);
  double expected = net->bn->running_mean.sum().item<double>();
  std::promise<double> rec;
  auto rec_f = rec.get_future();
  auto writer = vision::checkpoint_async(vision::snapshot_buffers(*net), quota_f, std::move(rec));
  step(5.0);
  quota.set_value();
  double got = rec_f.get();
  writer.join();
  std::cout << "checkpoint sum(running_mean) = " << got << " (at step 1: " << expected << ")\n";
  if (std::abs(got - expected) > 1e-6)
    std::cout << "HARM: the checkpoint holds the running mean of step 2\n";
  return 0;
}
