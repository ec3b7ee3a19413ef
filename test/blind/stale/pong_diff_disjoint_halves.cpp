// CASE: the previous and the current frame share one buffer (rows [0,k)
//       previous, rows [k,2k) current); the previous half is kept as a
//       narrow() view while a helper refills only the current half, then the
//       difference frame is computed
// SOURCE: the kind of code behind Karpathy's "Pong from pixels" (x = cur_x -
//         prev_x) ported to libtorch with one preallocated buffer
// KIND: near-miss
// WHY-OK: the write touches rows [k,2k), disjoint from the kept view
#include <torch/torch.h>
#include <iostream>

// Loads the current frame into the second half of buf, in place.
void load_current(torch::Tensor& buf, const torch::Tensor& frame) {
  int64_t k = buf.size(0) / 2;
  buf.narrow(0, k, k).copy_(frame);
}

int main() {
  const int64_t k = 3, w = 4;
  auto buf = torch::zeros({2 * k, w});
  buf.narrow(0, 0, k).fill_(1.0);            // frame t-1
  auto prev = buf.narrow(0, 0, k);
  load_current(buf, torch::full({k, w}, 2.5));
  auto diff = buf.narrow(0, k, k) - prev;
  float motion = diff.mean().item<float>();
  std::cout << "mean frame difference " << motion << "\n";
  if (motion != 1.5f)
    std::cout << "HARM: the difference should be 1.5 but is " << motion << "\n";
  return 0;
}
