// CASE: an RL environment wrapper keeps, per env, the last 8 sub-step actions
//       newest-first in a (num_envs, 8) tensor; with action repeat 2 each
//       env step shifts the history right by two in place,
//       `hist.index_put_({Slice(), Slice(k, None)}, hist.index({Slice(), Slice(None, -k)}))`,
//       then writes the two new entries at the front
// SOURCE: the kind of code in libtorch RL env wrappers (frame/action-history
//         stacking, cf. the PyTorch forum threads on "x[:, 1:] = x[:, :-1]
//         gives wrong results" and pytorch/pytorch issues on overlapping
//         copy_ / index_put_)
// KIND: bug
// HARM: source and destination overlap; the copy runs front to back and
//       smears the newest actions over the whole history
#include <torch/torch.h>
#include <iostream>

using namespace torch::indexing;

struct ActionHistory {
  ActionHistory(int64_t num_envs, int64_t len) : hist(torch::full({num_envs, len}, -1.0)) {}

  void push(const torch::Tensor& sub_actions) {  // (num_envs, k), oldest first
    const int64_t k = sub_actions.size(1);
    hist.index_put_({Slice(), Slice(k, None)}, hist.index({Slice(), Slice(None, -k)})); // BUG(libtorch-overlapping-inplace)
    hist.index_put_({Slice(), Slice(None, k)}, sub_actions.flip(1));
  }
  torch::Tensor hist;
};

int main() {
  const int64_t envs = 3, len = 8, repeat = 2;
  ActionHistory history(envs, len);
  auto expected = torch::full({envs, len}, -1.0);
  for (int step = 0; step < 4; ++step) {
    auto acts = torch::arange(repeat, torch::kFloat).add(step * repeat).repeat({envs, 1});
    history.push(acts);
    auto shifted = torch::cat({acts.flip(1), expected.narrow(1, 0, len - repeat)}, 1);
    expected = shifted;  // reference built out of place
  }
  std::cout << "history[0]:  " << history.hist[0] << "\nexpected[0]: " << expected[0] << "\n";
  if (!history.hist.equal(expected))
    std::cout << "HARM: the in-place overlapping shift corrupted the action history\n";
  return 0;
}
