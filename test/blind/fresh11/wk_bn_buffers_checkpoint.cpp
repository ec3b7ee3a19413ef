// CASE: a classifier trainer hands model->named_buffers() (BatchNorm running
//       statistics) to a background checkpoint thread that writes once the
//       disk quota frees up; the next training forward of the BatchNorm
//       layer updates running_mean/running_var in place meanwhile
// SOURCE: the kind of code in vision training loops with asynchronous
//         checkpointing of module state (buffers snapshotted by handle)
// KIND: bug
// HARM: the checkpoint of step 1 contains the running mean of step 2
#include <torch/torch.h>
#include <future>
#include <iostream>
#include <thread>

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

struct CheckpointRecord { int step; double running_mean_sum; };

std::thread checkpoint_async(int step, torch::OrderedDict<std::string, torch::Tensor> buffers,
                             std::shared_future<void> quota,
                             std::promise<CheckpointRecord> out) {
  return std::thread([step, buffers = std::move(buffers), quota,  // BUG(libtorch-worker-missing-clone)
                      out = std::move(out)]() mutable {
    quota.wait();  // the writer only starts when the disk quota frees up
    double s = buffers["bn.running_mean"].sum().item<double>();
    out.set_value({step, s});
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
    auto x = torch::randn({8, 3, 6, 6}) + shift;
    auto loss = net->forward(x).pow(2).mean();  // BUG(libtorch-worker-missing-clone)
    opt.zero_grad();
    loss.backward();
    opt.step();
  };

  step(0.0);
  double expected = net->bn->running_mean.sum().item<double>();
  std::promise<vision::CheckpointRecord> rec;
  auto rec_f = rec.get_future();
  auto writer = vision::checkpoint_async(1, net->named_buffers(), quota_f, std::move(rec));  // BUG(libtorch-worker-missing-clone)

  step(5.0);  // training goes on while the checkpoint is pending  // BUG(libtorch-worker-missing-clone)
  quota.set_value();
  auto r = rec_f.get();
  writer.join();
  std::cout << "checkpoint step " << r.step << ": sum(running_mean) = "
            << r.running_mean_sum << " (at step 1: " << expected << ")\n";
  if (std::abs(r.running_mean_sum - expected) > 1e-6)
    std::cout << "HARM: the step-1 checkpoint holds the running mean of step 2\n";
  return 0;
}
