// CASE: a "weight standardisation" helper rescales every conv/linear weight
//       through .data() and is called from the training step between the
//       loss computation and backward(), so backward silently uses the
//       rescaled weights it never ran forward with
// SOURCE: https://e-com-net.com/article/1279942790742032384.htm (.data changes
//         are not tracked by autograd; gradients are wrong if the tensor is
//         needed in backward)
// KIND: bug
// HARM: the gradient of the first layer does not match the loss that was
//       computed, with no error
#include <torch/torch.h>

#include <cstdio>
#include <string>

static void standardise_weights(torch::nn::Module& model) {
  for (auto& named : model.named_parameters()) {
    if (named.key().find("weight") == std::string::npos) continue;
    auto w = named.value().data();  // BUG(libtorch-detached-write)
    w.sub_(w.mean()).div_(w.std() + 1e-5);  // BUG(libtorch-detached-write)
  }
}

int main() {
  torch::manual_seed(29);
  torch::nn::Sequential model(torch::nn::Linear(5, 12), torch::nn::Tanh(), torch::nn::Linear(12, 3));
  auto x = torch::randn({20, 5});
  auto y = torch::randint(3, {20});

  auto w0 = model->ptr(0)->named_parameters()["weight"];
  auto ref_grad = torch::autograd::grad({torch::cross_entropy_loss(model->forward(x), y)}, {w0})[0];

  auto loss = torch::cross_entropy_loss(model->forward(x), y);
  standardise_weights(*model);
  loss.backward();  // BUG(libtorch-detached-write)

  const double err = (w0.grad() - ref_grad).abs().max().item<double>();
  std::printf("max |grad - reference| for layer 0: %.6g\n", err);
  if (err > 1e-6) std::printf("HARM: gradients computed with the standardised weights (off by %.6g)\n", err);
  return 0;
}
