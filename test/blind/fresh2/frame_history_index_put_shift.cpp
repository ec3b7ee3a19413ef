// CASE: a per-channel frame history for a sensor stack ([channels, history],
//       newest sample in column 0) shifts the older samples one column to
//       the right with index_put_ over Slice ranges taken from the same tensor,
//       then writes the newest sample into column 0
// SOURCE: https://github.com/pytorch/pytorch/issues/91894
// KIND: bug
// HARM: source and destination overlap, so the shift copies already-shifted
//       values (or throws); the history no longer holds the last samples in
//       order
#include <torch/torch.h>

#include <iostream>

using torch::indexing::None;
using torch::indexing::Slice;

struct FrameHistory {
  FrameHistory(int64_t channels, int64_t length)
      : frames(torch::zeros({channels, length})) {}

  void push(const torch::Tensor& latest) {
    frames.index_put_({Slice(), Slice(1, None)},  // BUG(libtorch-overlapping-inplace)
                      frames.index({Slice(), Slice(None, -1)}));
    frames.index_put_({Slice(), 0}, latest);
  }

  torch::Tensor frames;
};

int main() {
  FrameHistory history(3, 4);
  try {
    for (int t = 1; t <= 4; ++t) {
      history.push(torch::full({3}, static_cast<float>(t)));
    }
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: the shift threw: " << what.substr(0, what.find('\n')) << "\n";
    return 0;
  }
  auto expected = torch::tensor({4.0f, 3.0f, 2.0f, 1.0f}).expand({3, 4});
  std::cout << "history:\n" << history.frames << "\n";
  if (!torch::equal(history.frames, expected)) {
    std::cout << "HARM: the history lost samples to the overlapping shift\n";
  }
  return 0;
}
