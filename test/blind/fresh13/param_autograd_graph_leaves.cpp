// CASE: a meta-learning helper finds "the trainable leaves of the loss" by
//       walking loss.grad_fn()'s next_edges() depth first and collecting the
//       variable of every AccumulateGrad node it reaches, without a visited
//       set; an unrolled RNN reaches its recurrent weight once per time
//       step, so the hand-written momentum SGD steps it T times
// SOURCE: the kind of code in C++ MAML / hypernetwork experiments that
//         collect parameters from the autograd graph instead of the module
// KIND: bug
// HARM: the first update moves the recurrent weight many times lr * grad

#include <torch/torch.h>
#include <torch/csrc/autograd/functions/accumulate_grad.h>

#include <cstdio>
#include <unordered_map>
#include <vector>

std::vector<torch::Tensor> graph_leaves(const torch::Tensor& loss) {
  std::vector<torch::Tensor> leaves;
  std::vector<std::shared_ptr<torch::autograd::Node>> stack{loss.grad_fn()};
  while (!stack.empty()) {
    auto node = stack.back();
    stack.pop_back();
    if (auto* acc = dynamic_cast<torch::autograd::AccumulateGrad*>(node.get())) {
      leaves.push_back(acc->variable);  // BUG(libtorch-shared-parameter-update)
      continue;
    }
    for (const auto& edge : node->next_edges())
      if (edge.function) stack.push_back(edge.function);
  }
  return leaves;
}

class MomentumSGD {
 public:
  MomentumSGD(std::vector<torch::Tensor> params, double lr, double momentum)
      : params_(std::move(params)), lr_(lr), momentum_(momentum) {}
  void step() {
    torch::NoGradGuard no_grad;
    for (auto& p : params_) {
      auto& buf = velocity_[p.unsafeGetTensorImpl()];
      buf = buf.defined() ? buf.mul(momentum_).add(p.grad()) : p.grad().clone();
      p.sub_(buf, lr_);  // BUG(libtorch-shared-parameter-update)
    }
  }

 private:
  std::vector<torch::Tensor> params_;
  std::unordered_map<c10::TensorImpl*, torch::Tensor> velocity_;
  double lr_, momentum_;
};

int main() {
  torch::manual_seed(0);
  const int64_t in = 4, hidden = 8, steps = 5;
  auto W_in = (0.3 * torch::randn({in, hidden})).requires_grad_();
  auto W_hh = (0.3 * torch::randn({hidden, hidden})).requires_grad_();
  auto w_out = (0.3 * torch::randn({hidden, 1})).requires_grad_();

  auto xs = torch::randn({steps, 16, in});
  auto target = torch::randn({16, 1});
  auto h = torch::zeros({16, hidden});
  for (int64_t t = 0; t < steps; ++t) h = torch::tanh(xs[t].mm(W_in) + h.mm(W_hh));
  auto loss = torch::mse_loss(h.mm(w_out), target);

  auto params = graph_leaves(loss);  // BUG(libtorch-shared-parameter-update)
  loss.backward();
  MomentumSGD opt(params, 0.1, 0.9);

  auto before = W_hh.detach().clone();
  auto expected = (0.1 * W_hh.grad()).norm().item<double>();
  opt.step();  // BUG(libtorch-shared-parameter-update)
  double ratio = (before - W_hh.detach()).norm().item<double>() / expected;

  std::printf("collected %zu leaves for 3 parameters; W_hh moved %.2f x lr*grad\n",
              params.size(), ratio);
  if (ratio > 1.5)
    std::printf("HARM: the first update moved the recurrent weight %.2f x lr*grad "
                "instead of 1x (the walk listed it once per time step)\n", ratio);
  return 0;
}
