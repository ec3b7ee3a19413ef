// CASE: a max-norm constraint renormalises the output layer's rows through
//       detach() inside the training step, after the forward pass that saved
//       the weight and before backward()
// SOURCE: https://androidkt.com/one-of-the-variables-needed-for-gradient-computation-has-been-modified-by-an-inplace-operation/
//         (an in-place change through detach() to a tensor saved for backward
//         makes backward fail)
// KIND: bug
// HARM: backward throws "modified by an inplace operation"
#include <torch/torch.h>

#include <cstdio>

static void apply_max_norm(torch::nn::Linear& layer, double max_norm) {
  auto w = layer->weight.detach();  // BUG(libtorch-detached-write)
  auto norms = w.norm(2, 1, /*keepdim=*/true).clamp_min(max_norm);
  w.mul_(max_norm / norms);  // BUG(libtorch-detached-write)
}

int main() {
  torch::manual_seed(24);
  torch::nn::Linear hidden(10, 32), out(32, 5);
  torch::optim::SGD opt({hidden->weight, hidden->bias, out->weight, out->bias}, 0.1);
  auto x = torch::randn({8, 10});
  auto y = torch::randint(5, {8});

  opt.zero_grad();
  auto logits = out(torch::relu(hidden(x)));
  auto loss = torch::cross_entropy_loss(logits, y);
  apply_max_norm(out, 0.5);
  try {
    loss.backward();  // BUG(libtorch-detached-write)
    opt.step();
    std::printf("backward succeeded\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
