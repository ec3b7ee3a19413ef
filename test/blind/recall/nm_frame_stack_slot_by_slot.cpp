// CASE: the evaluation frame stack (newest frame first) shifts the older
//       frames one slot at a time, from the last slot down, before writing
//       the new frame into slot 0
// SOURCE: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/226
//         (the overlapping one-shot shift; here replaced by per-slot copies)
// KIND: near-miss
// WHY-OK: each copy_ moves one whole frame between two disjoint slots, and
//         the order (from the end) never reads a slot already overwritten
#include <torch/torch.h>

#include <cstdio>

class FrameStack {
 public:
  FrameStack(int64_t c, int64_t stack, int64_t h, int64_t w)
      : c_(c), stack_(stack), stacked_(torch::zeros({1, c * stack, h, w})) {}

  void push(const torch::Tensor& frame) {
    for (int64_t i = stack_ - 1; i > 0; --i) slot(i).copy_(slot(i - 1));
    slot(0).copy_(frame);
  }
  torch::Tensor slot(int64_t i) { return stacked_.narrow(1, i * c_, c_); }

 private:
  int64_t c_, stack_;
  torch::Tensor stacked_;
};

int main() {
  FrameStack fs(3, 4, 5, 5);
  for (int t = 0; t < 6; ++t) fs.push(torch::full({1, 3, 5, 5}, static_cast<float>(t)));
  bool ok = true;
  for (int64_t i = 0; i < 4; ++i) ok = ok && fs.slot(i).eq(static_cast<float>(5 - i)).all().item<bool>();
  std::printf("slots hold frames 5 4 3 2: %s\n", ok ? "yes" : "no");
  if (!ok) std::printf("HARM: frame stack corrupted\n");
  return 0;
}
