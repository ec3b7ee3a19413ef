// CASE: a Parseval network keeps its layers near-orthonormal with the
//       retraction W <- (1 + b) W - b W W^T W, applied inside forward() in
//       training mode under torch::AutoGradMode(false), i.e. after the
//       layer's matmul saved W and before the caller's backward()
// SOURCE: the kind of code in C++ ports of Parseval / orthogonality-
//         constrained networks (robust classifiers, Lipschitz RL critics)
// KIND: bug
// HARM: backward() throws "modified by an inplace operation"

#include <torch/torch.h>

#include <cstdio>

struct ParsevalMLPImpl : torch::nn::Module {
  ParsevalMLPImpl(int64_t in, int64_t hidden, int64_t out, double beta)
      : fc1(register_module("fc1", torch::nn::Linear(in, hidden))),
        fc2(register_module("fc2", torch::nn::Linear(hidden, hidden))),
        head(register_module("head", torch::nn::Linear(hidden, out))),
        beta_(beta) {}

  torch::Tensor forward(const torch::Tensor& x) {
    auto h = torch::relu(fc1->forward(x));
    h = torch::relu(fc2->forward(h));
    auto y = head->forward(h);
    // Keep the hidden layers Parseval-tight after every training forward.
    if (is_training()) retract();  // BUG(libtorch-detached-write)
    return y;
  }

  void retract() {
    torch::AutoGradMode enable_grad(false);
    for (auto* layer : {&fc1, &fc2}) {
      torch::Tensor& w = (*layer)->weight;
      auto wwtw = w.mm(w.t()).mm(w);
      w.mul_(1.0 + beta_).sub_(wwtw, beta_);  // BUG(libtorch-detached-write)
    }
  }

  torch::nn::Linear fc1, fc2, head;
  double beta_;
};
TORCH_MODULE(ParsevalMLP);

int main() {
  torch::manual_seed(0);
  ParsevalMLP net(10, 32, 3, 0.003);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  auto x = torch::randn({64, 10});
  auto y = torch::randint(0, 3, {64});

  for (int epoch = 0; epoch < 2; ++epoch) {
    opt.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
    try {
      loss.backward();
    } catch (const c10::Error& e) {
      std::string what = e.what_without_backtrace();
      std::printf("HARM: backward failed after the retraction: %s\n",
                  what.substr(0, what.find('.')).c_str());
      return 0;
    }
    opt.step();
    std::printf("epoch %d loss %.4f\n", epoch, loss.item<float>());
  }
  return 0;
}
