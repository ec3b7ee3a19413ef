// CASE: an Atari-style frame stack class returns the frame the next push
//       will drop; the accessor clones it, so the caller's copy survives the
//       in-place shift of the member buffer
// SOURCE: the kind of code in C++ RL agents with a FrameStack wrapper
//         (deque of the last k frames kept as one k x H x W tensor)
// KIND: near-miss
// WHY-OK: oldest() returns buf_[0].clone(), a snapshot, not a view
#include <torch/torch.h>
#include <iostream>
#include <vector>

class FrameStack {
 public:
  FrameStack(int64_t k, int64_t h, int64_t w) : buf_(torch::zeros({k, h, w})) {}
  // A copy of the frame that the next push() will drop.
  torch::Tensor oldest() const { return buf_[0].clone(); }
  void push(const torch::Tensor& obs) {
    buf_.copy_(torch::roll(buf_, -1, 0));
    buf_[buf_.size(0) - 1].copy_(obs);
  }

 private:
  torch::Tensor buf_;
};

int main() {
  FrameStack stack(4, 2, 2);
  for (int f = 1; f <= 4; ++f) stack.push(torch::full({2, 2}, float(f)));
  std::vector<torch::Tensor> archive;
  for (int f = 5; f <= 6; ++f) {
    auto dropped = stack.oldest();
    stack.push(torch::full({2, 2}, float(f)));
    archive.push_back(dropped);
  }
  float first = archive[0].mean().item<float>();
  float second = archive[1].mean().item<float>();
  std::cout << "archived frames: " << first << " " << second << "\n";
  if (first != 1.0f || second != 2.0f)
    std::cout << "HARM: the archive should hold frames 1 and 2 but holds " << first << " "
              << second << "\n";
  return 0;
}
