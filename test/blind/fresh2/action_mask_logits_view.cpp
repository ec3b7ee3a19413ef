// CASE: a board-game policy masks illegal moves by writing a large negative
//       value through narrow() views of the logits (the output of a Linear
//       layer) and only then applies softmax; the policy-gradient loss is
//       backpropagated
// SOURCE: https://coderapp.vercel.app/answer/66934727
// KIND: near-miss
// WHY-OK: the Linear layer's backward saves its input and weight, not its
//         output, so writing into the logits before softmax leaves every
//         saved tensor intact; softmax saves the output of the masked logits
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct PolicyHeadImpl : torch::nn::Module {
  PolicyHeadImpl(int64_t features, int64_t moves)
      : fc(register_module("fc", torch::nn::Linear(features, moves))) {}
  torch::Tensor forward(const torch::Tensor& x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(PolicyHead);

// Makes illegal moves impossible before the softmax.
static torch::Tensor mask_illegal(torch::Tensor logits,
                                  const std::vector<int64_t>& illegal) {
  for (int64_t move : illegal) {
    logits.narrow(1, move, 1).fill_(-1e9);
  }
  return torch::softmax(logits, 1);
}

int main() {
  torch::manual_seed(0);
  PolicyHead head(10, 5);
  auto boards = torch::randn({4, 10});
  auto taken = torch::tensor({1, 2, 4, 1}, torch::kLong);
  auto advantage = torch::tensor({0.5f, -1.0f, 2.0f, 0.3f});

  auto legal = mask_illegal(head->forward(boards), {0, 3});
  auto logp = legal.gather(1, taken.unsqueeze(1)).squeeze(1).log();
  auto loss = -(logp * advantage).mean();
  try {
    loss.backward();
    std::cout << "backward ran; |grad| = " << head->fc->weight.grad().norm().item<double>() << "\n";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: backward failed: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
