// CASE: an asynchronous checkpoint writer is given the model's parameter list
//       through std::ref and serialises it while the training loop keeps
//       stepping the optimizer on the same tensors
// SOURCE: https://github.com/pytorch/pytorch/issues/37038 (maintainer: tensors
//         are safe to read from several threads but not to write; users must
//         lock or copy)
// KIND: bug
// HARM: the checkpoint of step 0 contains the weights of step 1
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <future>
#include <vector>

// Stand-in for torch::save to a slow disk: flattens every tensor into one
// buffer once the I/O slot opens.
static std::vector<float> write_checkpoint(const std::vector<torch::Tensor>& params,
                                           std::shared_future<void> io_slot) {
  io_slot.wait();
  std::vector<float> blob;
  for (const auto& p : params) {
    auto flat = p.reshape({-1});
    auto acc = flat.accessor<float, 1>();
    for (int64_t i = 0; i < flat.numel(); ++i) blob.push_back(acc[i]);
  }
  return blob;
}

int main() {
  torch::manual_seed(1);
  auto model = torch::nn::Sequential(torch::nn::Linear(4, 8), torch::nn::Tanh(),
                                     torch::nn::Linear(8, 1));
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.5));
  auto x = torch::randn({32, 4});
  auto y = torch::randn({32, 1});

  std::vector<torch::Tensor> params = model->parameters();
  const float expected_first = params[0].view({-1})[0].item<float>();

  std::promise<void> io_open;
  std::shared_future<void> io_slot = io_open.get_future().share();
  // Checkpoint "step 0" in the background.
  auto pending = std::async(std::launch::async, write_checkpoint, std::cref(params),  // BUG(libtorch-worker-missing-clone)
                            io_slot);

  // Keep training while the checkpoint is written.
  opt.zero_grad();
  auto loss = torch::mse_loss(model->forward(x), y);
  loss.backward();
  opt.step();  // BUG(libtorch-worker-missing-clone)
  io_open.set_value();

  std::vector<float> blob = pending.get();
  std::printf("checkpoint[0] = %.6f, weight at step 0 = %.6f\n", blob[0], expected_first);
  if (blob[0] != expected_first) {
    std::printf("HARM: checkpoint of step 0 holds step-1 weights (%.6f != %.6f)\n", blob[0],
                expected_first);
  }
  return 0;
}
