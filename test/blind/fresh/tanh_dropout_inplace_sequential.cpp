// CASE: an MLP built as a Sequential with an in-place Dropout right after a
//       Tanh, trained in the ordinary way
// SOURCE: discuss.pytorch.org threads on "nn.Dropout(inplace=True)" giving
//         "one of the variables needed for gradient computation has been
//         modified by an inplace operation"
// KIND: bug
// HARM: backward throws "modified by an inplace operation": Tanh saved its
//       output for backward and the in-place dropout overwrote it
#include <torch/torch.h>

#include <iostream>
#include <string>

int main() {
  torch::manual_seed(0);
  torch::nn::Sequential mlp(
      torch::nn::Linear(8, 32),
      torch::nn::Tanh(),  // BUG(libtorch-detached-write)
      torch::nn::Dropout(torch::nn::DropoutOptions(0.3).inplace(true)),  // BUG(libtorch-detached-write)
      torch::nn::Linear(32, 2));
  torch::optim::Adam opt(mlp->parameters(), torch::optim::AdamOptions(1e-3));
  auto x = torch::randn({64, 8});
  auto y = torch::randint(0, 2, {64});
  try {
    for (int epoch = 0; epoch < 3; ++epoch) {
      mlp->train();
      opt.zero_grad();
      auto logits = mlp->forward(x);  // BUG(libtorch-detached-write)
      auto loss = torch::nn::functional::cross_entropy(logits, y);
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
