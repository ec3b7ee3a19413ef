// CASE: a quantisation-aware linear layer is a custom autograd::Function that
//       saves its weight with ctx->save_for_backward; the training step snaps
//       the weights to the int4 grid through .data() after backward and the
//       optimizer step, so the next forward sees quantised weights
// SOURCE: the kind of QAT code built on torch::autograd::Function in C++
//         training loops (fake-quant weights with a straight-through backward)
// KIND: near-miss
// WHY-OK: the graph that saved the weight has been consumed by backward before
//         the .data() write; the next forward saves the snapped values afresh
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace qat {

struct QuantLinearFn : torch::autograd::Function<QuantLinearFn> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor x, torch::Tensor w) {
    ctx->save_for_backward({x, w});
    return x.mm(w.t());
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    auto g = grads[0];
    return {g.mm(saved[1]), g.t().mm(saved[0])};
  }
};

struct QuantLinearImpl : torch::nn::Module {
  QuantLinearImpl(int64_t in, int64_t out) { weight = register_parameter("weight", torch::randn({out, in}) * 0.3); }
  torch::Tensor forward(const torch::Tensor& x) { return QuantLinearFn::apply(x, weight); }
  torch::Tensor weight;
};
TORCH_MODULE(QuantLinear);

void snap_to_grid_(torch::Tensor& w, int bits) {
  const double levels = (1 << (bits - 1)) - 1;
  auto scale = w.detach().abs().max() / levels;
  w.data().div_(scale).round_().mul_(scale);
}

}  // namespace qat

int main() {
  torch::manual_seed(6);
  torch::nn::Linear fc1(8, 16);
  qat::QuantLinear fc2(16, 4);
  auto x = torch::randn({32, 8}), y = torch::randn({32, 4});
  std::vector<torch::Tensor> params = fc1->parameters();
  params.push_back(fc2->weight);
  torch::optim::SGD opt(params, 0.1);

  double worst = 0, last_loss = 0;
  for (int it = 0; it < 3; ++it) {
    // the gradient fc1 should get, from the weights this forward uses
    const auto w_used = fc2->weight.detach().clone();
    auto ref_loss = torch::mse_loss(torch::relu(fc1->forward(x)).mm(w_used.t()), y);
    const auto ref_grad = torch::autograd::grad({ref_loss}, {fc1->weight})[0];

    opt.zero_grad();
    auto loss = torch::mse_loss(fc2->forward(torch::relu(fc1->forward(x))), y);
    loss.backward();
    worst = std::max(worst, (fc1->weight.grad() - ref_grad).abs().max().item<double>());
    opt.step();
    qat::snap_to_grid_(fc2->weight, /*bits=*/4);
    last_loss = loss.item<double>();
  }
  std::printf("loss %.4f after 3 steps; worst fc1 gradient deviation %.2g\n", last_loss, worst);
  if (worst > 1e-5)
    std::printf("HARM: fc1's gradient is off by %.5f because backward used the snapped weights\n", worst);
  return 0;
}
