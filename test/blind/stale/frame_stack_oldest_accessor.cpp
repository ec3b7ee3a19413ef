// CASE: an Atari-style frame stack class returns the frame the next push
//       will drop as a view of its member buffer; the caller keeps it to
//       archive, pushes (the method shifts the buffer in place), then
//       archives the "dropped" frame
// SOURCE: the kind of code in C++ RL agents with a FrameStack wrapper
//         (deque of the last k frames kept as one k x H x W tensor)
// KIND: bug
// HARM: the archived frame is the second oldest, not the dropped one
#include <torch/torch.h>
#include <iostream>
#include <vector>

class FrameStack {
 public:
  FrameStack(int64_t k, int64_t h, int64_t w) : buf_(torch::zeros({k, h, w})) {}
  // The frame that the next push() will drop.
  torch::Tensor oldest() const { return buf_[0]; }       // BUG(libtorch-inplace-on-view)
  void push(const torch::Tensor& obs) {
    buf_.copy_(torch::roll(buf_, -1, 0));                // BUG(libtorch-inplace-on-view)
    buf_[buf_.size(0) - 1].copy_(obs);
  }
  const torch::Tensor& stacked() const { return buf_; }

 private:
  torch::Tensor buf_;
};

int main() {
  FrameStack stack(4, 2, 2);
  for (int f = 1; f <= 4; ++f) stack.push(torch::full({2, 2}, float(f)));
  std::vector<torch::Tensor> archive;
  for (int f = 5; f <= 6; ++f) {
    auto dropped = stack.oldest();                       // BUG(libtorch-inplace-on-view)
    stack.push(torch::full({2, 2}, float(f)));           // BUG(libtorch-inplace-on-view)
    archive.push_back(dropped);                          // BUG(libtorch-inplace-on-view)
  }
  float first = archive[0].mean().item<float>();         // BUG(libtorch-inplace-on-view)
  std::cout << "archived frames: " << first << " " << archive[1].mean().item<float>() << "\n";
  if (first != 1.0f)
    std::cout << "HARM: the first dropped frame should be 1 but the archive holds " << first
              << "\n";
  return 0;
}
