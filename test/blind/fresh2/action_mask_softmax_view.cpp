// CASE: a board-game policy computes action probabilities with softmax and
//       a helper zeroes the illegal moves through narrow() views of the
//       probability tensor before renormalising; the policy-gradient loss is
//       then backpropagated
// SOURCE: https://coderapp.vercel.app/answer/66934727
// KIND: bug
// HARM: backward throws, because softmax saved its output for the gradient
//       and the helper overwrote it in place
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

// Removes the probability mass of illegal moves and renormalises.
static torch::Tensor mask_illegal(torch::Tensor probs,
                                  const std::vector<int64_t>& illegal) {
  for (int64_t move : illegal) {
    probs.narrow(1, move, 1).zero_();  // BUG(libtorch-inplace-on-view)
  }
  return probs / probs.sum(1, /*keepdim=*/true);
}

int main() {
  torch::manual_seed(0);
  PolicyHead head(10, 5);
  auto boards = torch::randn({4, 10});
  auto taken = torch::tensor({1, 2, 4, 1}, torch::kLong);
  auto advantage = torch::tensor({0.5f, -1.0f, 2.0f, 0.3f});

  auto probs = torch::softmax(head->forward(boards), 1);
  auto legal = mask_illegal(probs, {0, 3});
  auto logp = legal.gather(1, taken.unsqueeze(1)).squeeze(1).log();
  auto loss = -(logp * advantage).mean();
  try {
    loss.backward();
    std::cout << "backward ran\n";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: backward failed: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
