// CASE: local SGD (periodic model averaging) on a simulated group of peers;
//       the trainer's step computes the loss, lets the averaging hook run
//       (it writes the averaged weights into the parameters through
//       .data()) and only then calls backward on the loss of the old weights
// SOURCE: the kind of code in C++ federated / local-SGD trainers on libtorch
//       (average every H steps; .data() used to bypass autograd for the
//       write), cf. discuss.pytorch.org threads on wrong gradients after
//       modifying weights via .data
// KIND: bug
// HARM: on an averaging step the first layer's gradient matches neither the
//       loss that was computed nor the averaged model
#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <vector>

namespace dist {

class LocalSgdGroup {
 public:
  LocalSgdGroup(std::vector<std::vector<torch::Tensor>> peers, int64_t period)
      : peers_(std::move(peers)), period_(period) {}

  void maybe_average(int64_t step, const std::vector<torch::Tensor>& params) {
    if (step % period_ != 0) return;
    for (size_t i = 0; i < params.size(); ++i) {
      auto mean = params[i].detach().clone();
      for (const auto& peer : peers_) mean.add_(peer[i]);
      mean.div_(static_cast<double>(peers_.size() + 1));
      params[i].data().copy_(mean);  // BUG(libtorch-detached-write)
    }
  }

 private:
  std::vector<std::vector<torch::Tensor>> peers_;
  int64_t period_;
};

}  // namespace dist

class Trainer {
 public:
  Trainer(torch::nn::Sequential model, dist::LocalSgdGroup sync)
      : model_(std::move(model)),
        params_(model_->parameters()),
        opt_(params_, torch::optim::SGDOptions(0.05)),
        sync_(std::move(sync)) {}

  double step(const torch::Tensor& x, const torch::Tensor& y) {
    const auto loss = torch::mse_loss(model_->forward(x), y);
    sync_.maybe_average(++step_, params_);  // BUG(libtorch-detached-write)
    opt_.zero_grad();
    loss.backward();
    opt_.step();
    return loss.item<double>();
  }

  const torch::nn::Sequential& model() const { return model_; }
  int64_t next_step() const { return step_ + 1; }

 private:
  torch::nn::Sequential model_;
  std::vector<torch::Tensor> params_;
  torch::optim::SGD opt_;
  dist::LocalSgdGroup sync_;
  int64_t step_ = 0;
};

int main() {
  torch::manual_seed(5);
  torch::nn::Sequential net(torch::nn::Linear(4, 8), torch::nn::Tanh(), torch::nn::Linear(8, 1));
  std::vector<std::vector<torch::Tensor>> peers(3);
  for (auto& peer : peers)
    for (const auto& p : net->parameters()) peer.push_back(torch::randn_like(p));

  Trainer trainer(net, dist::LocalSgdGroup(std::move(peers), 4));
  const auto x = torch::randn({16, 4});
  const auto y = torch::randn({16, 1});

  for (int i = 0; i < 3; ++i) trainer.step(x, y);

  // Reference: the gradient of the loss at the weights the forward used.
  auto reference = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(trainer.model()->clone());
  torch::mse_loss(reference->forward(x), y).backward();
  const auto ref_grad = reference->ptr(0)->as<torch::nn::Linear>()->weight.grad().clone();

  std::printf("step %ld averages with the peers\n", static_cast<long>(trainer.next_step()));
  trainer.step(x, y);
  const auto got = trainer.model()->ptr(0)->as<torch::nn::Linear>()->weight.grad();
  const double off = (got - ref_grad).abs().max().item<double>();
  std::printf("first-layer gradient differs from the loss's gradient by %.4f\n", off);
  if (off > 1e-5) {
    std::printf("HARM: backward used the averaged second-layer weights for a loss computed "
                "with the local ones (gradient off by %.4f)\n",
                off);
  }
  return 0;
}
