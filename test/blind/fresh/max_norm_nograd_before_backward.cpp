// CASE: a max-norm constraint on the output layer, applied by a helper under
//       NoGradGuard between the forward pass and loss.backward()
// SOURCE: discuss.pytorch.org threads on max-norm weight constraints
//         ("how to implement max norm constraint") and the "one of the
//         variables needed for gradient computation has been modified by an
//         inplace operation" threads they lead to
// KIND: bug
// HARM: backward throws "modified by an inplace operation": fc2's weight,
//       saved to back-propagate into fc1, was renormalised in place
#include <torch/torch.h>

#include <iostream>
#include <string>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(10, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, 4))) {}
  torch::Tensor forward(torch::Tensor x) {
    return fc2(torch::relu(fc1(x)));  // BUG(libtorch-detached-write)
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

// Keep each output unit's incoming weight vector inside an L2 ball.
static void apply_max_norm(torch::nn::Linear& layer, double max_norm) {
  torch::NoGradGuard no_grad;
  layer->weight.renorm_(2, 0, max_norm);  // BUG(libtorch-detached-write)
}

int main() {
  torch::manual_seed(0);
  Net net;
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1));
  auto x = torch::randn({16, 10});
  auto y = torch::randint(0, 4, {16});
  try {
    for (int it = 0; it < 3; ++it) {
      opt.zero_grad();
      auto out = net(x);  // BUG(libtorch-detached-write)
      auto loss = torch::nn::functional::cross_entropy(out, y);
      apply_max_norm(net->fc2, 0.1);  // BUG(libtorch-detached-write)
      loss.backward();  // BUG(libtorch-detached-write)
      opt.step();
    }
    std::cout << "training ran\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
