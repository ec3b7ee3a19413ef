// CASE: a streaming time-series feature keeps the last W samples in a
//       window and emits the first difference; each step takes the previous
//       sample as window.select(0, W-1), shifts the window in place and
//       writes the new sample, then subtracts the "previous" sample
// SOURCE: the kind of code in online sensor / audio feature extraction
//         (rolling window updated in place per sample)
// KIND: bug
// HARM: every delta is 0
#include <torch/torch.h>
#include <iostream>
#include <vector>

int main() {
  const int64_t W = 5;
  auto window = torch::zeros({W});
  std::vector<float> samples{1.f, 3.f, 6.f, 10.f};
  std::vector<float> deltas;
  for (float x : samples) {
    auto prev = window.select(0, W - 1);            // BUG(libtorch-inplace-on-view)
    window.copy_(torch::roll(window, -1, 0));       // BUG(libtorch-inplace-on-view)
    window.select(0, W - 1).fill_(x);               // BUG(libtorch-inplace-on-view)
    deltas.push_back(x - prev.item<float>());       // BUG(libtorch-inplace-on-view)
  }
  std::cout << "deltas:";
  for (float d : deltas) std::cout << " " << d;
  std::cout << "\n";
  if (deltas[1] != 2.0f)
    std::cout << "HARM: the delta 3 - 1 should be 2 but is " << deltas[1] << "\n";
  return 0;
}
