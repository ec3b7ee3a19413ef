// CASE: a bias constraint (clamp every Linear bias into [-0.05, 0.05])
//       applied under NoGradGuard between the forward pass and backward
// SOURCE: the kind of code in training loops that apply parameter
//         constraints right after computing the loss
// KIND: near-miss
// WHY-OK: a Linear layer's forward (addmm) saves its input and weight, not
//         its bias, and no other saved tensor aliases the bias; the gradients
//         are the ones the forward defines and backward does not throw
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(10, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2->forward(torch::relu(fc1->forward(x))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

static void clamp_biases(Net& net, double limit) {
  torch::NoGradGuard no_grad;
  net->fc1->bias.clamp_(-limit, limit);
  net->fc2->bias.clamp_(-limit, limit);
}

int main() {
  auto x = torch::randn({16, 10});
  auto y = torch::randint(0, 4, {16});

  torch::manual_seed(0);
  Net ref;
  torch::nn::functional::cross_entropy(ref(x), y).backward();

  torch::manual_seed(0);
  Net net;
  auto out = net(x);
  auto loss = torch::nn::functional::cross_entropy(out, y);
  clamp_biases(net, 0.05);
  loss.backward();

  double worst = 0.0;
  auto p = net->parameters();
  auto r = ref->parameters();
  for (size_t i = 0; i < p.size(); ++i)
    worst = std::max(worst, (p[i].grad() - r[i].grad()).abs().max().item<double>());
  std::cout << (worst < 1e-6 ? "ok: " : "MISMATCH: ")
            << "gradients match the unconstrained forward (max diff " << worst << ")\n";
  return 0;
}
