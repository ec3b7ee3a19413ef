// instrument.h after <torch/torch.h>, compiled with -Wall -Wextra -Werror.
#include <torch/torch.h>

#include <torchalias/instrument.h>

#include <memory>
#include <vector>

namespace strict_after_torch {

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(2, 2))) {}
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void every_macro(torch::Tensor &x, std::vector<float> &buffer, Net &net) {
  TORCHALIAS_AT_VIEW_WRITE("b000000000000001", x.reshape({-1})).add_(1);
  TORCHALIAS_AT_OVERLAP_DST("b000000000000002", x.narrow(0, 0, 1))
      .copy_(TORCHALIAS_AT_OVERLAP_OPERAND("b000000000000002",
                                           x.narrow(0, 1, 1)));
  torch::mul_out(x, TORCHALIAS_AT_OVERLAP_OPERAND_OF("b000000000000003", x,
                                                     x.detach()),
                 x);
  TORCHALIAS_AT_DETACHED_SOURCE("b000000000000004", net->fc->weight)
      .detach()
      .zero_();
  auto wrapped = TORCHALIAS_AT_FROM_BLOB(
      "b000000000000005",
      torch::from_blob(buffer.data(), {static_cast<int64_t>(buffer.size())}));
  torch::optim::SGD sgd(
      TORCHALIAS_AT_PARAMETERS("b000000000000006", net->parameters()),
      torch::optim::SGDOptions(0.1));
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(net->parameters());
  torch::optim::Adam adam(TORCHALIAS_AT_PARAMETERS("b000000000000007", groups));
  TORCHALIAS_AT_PARAMETERS("b000000000000008", net);
  std::shared_ptr<NetImpl> shared = net.ptr();
  TORCHALIAS_AT_PARAMETERS("b000000000000009", shared);
  TORCHALIAS_AT_WORKER("b00000000000000a", guard, x, wrapped);
  // validate.h's hand-written macros come with it, and stay warning-free.
  TORCHALIAS_VALIDATE_INPLACE_ON_VIEW(x);
  TORCHALIAS_VALIDATE_PARAMETERS(net);
  std::vector<torch::Tensor> shards = {x, wrapped};
  TORCHALIAS_WORKER_GUARD(hand_guard, shards, x);
}

} // namespace strict_after_torch
