// CASE: an RL agent clips observations with an in-place Hardtanh before its
//       Q-network; the loop then stores the same observation in the replay
//       buffer as the raw one
// SOURCE: the kind of code in DQN training loops (observation clipping before
//         the network), with the "inplace=True changes my input" surprise of
//         discuss.pytorch.org threads
// KIND: bug
// HARM: the replay buffer stores clipped observations (max 1) instead of the
//       raw ones the environment returned
#include <torch/torch.h>

#include <iostream>
#include <vector>

struct Transition {
  torch::Tensor obs;
  int64_t action;
  double reward;
};

struct Agent {
  Agent()
      : clip(torch::nn::HardtanhOptions().min_val(-1.0).max_val(1.0).inplace(true)),  // BUG(libtorch-inplace-on-view)
        q(torch::nn::Linear(4, 32), torch::nn::ReLU(), torch::nn::Linear(32, 2)) {}

  int64_t act(const torch::Tensor& obs) {
    torch::NoGradGuard no_grad;
    return q->forward(clip(obs)).argmax(1).item<int64_t>();  // BUG(libtorch-inplace-on-view)
  }

  torch::nn::Hardtanh clip;
  torch::nn::Sequential q;
};

int main() {
  torch::manual_seed(0);
  Agent agent;
  std::vector<Transition> replay;
  std::vector<double> raw_max;

  for (int step = 0; step < 10; ++step) {
    auto obs = torch::randn({1, 4}) * 3.0;  // what the environment returned
    raw_max.push_back(obs.abs().max().item<double>());
    auto action = agent.act(obs);  // BUG(libtorch-inplace-on-view)
    replay.push_back({obs, action, 1.0});  // BUG(libtorch-inplace-on-view)
  }

  int clipped = 0;
  for (size_t i = 0; i < replay.size(); ++i) {
    if (replay[i].obs.abs().max().item<double>() < raw_max[i] - 1e-6) ++clipped;
  }
  if (clipped > 0) {
    std::cout << "HARM: " << clipped << " of " << replay.size()
              << " stored observations were clipped (first raw max "
              << raw_max[0] << ", stored max "
              << replay[0].obs.abs().max().item<double>() << ")\n";
  } else {
    std::cout << "replay holds raw observations\n";
  }
  return 0;
}
