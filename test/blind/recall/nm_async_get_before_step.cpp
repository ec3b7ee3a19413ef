// CASE: the asynchronous checkpoint writer is joined with future::get()
//       before the optimizer step writes the parameters it was given by
//       reference
// SOURCE: https://github.com/pytorch/pytorch/issues/37038 (reads from several
//         threads are fine; writes must be ordered by the caller)
// KIND: near-miss
// WHY-OK: get() completes the reader before the step's in-place update
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <future>
#include <vector>

static std::vector<float> write_checkpoint(const std::vector<torch::Tensor>& params) {
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

  auto pending = std::async(std::launch::async, write_checkpoint, std::cref(params));

  // Forward and backward do not touch the parameter values.
  opt.zero_grad();
  auto loss = torch::mse_loss(model->forward(x), y);
  loss.backward();

  std::vector<float> blob = pending.get();  // the checkpoint is complete here
  opt.step();

  std::printf("checkpoint[0] = %.6f, weight at step 0 = %.6f\n", blob[0], expected_first);
  if (blob[0] != expected_first) std::printf("HARM: checkpoint holds step-1 weights\n");
  return 0;
}
