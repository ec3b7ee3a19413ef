// CASE: an audio stream is read block by block into one reusable buffer;
//       the first frame of each block (split(...)[0], a view) is kept in a
//       vector to compute per-block loudness after the stream ends
// SOURCE: the kind of code in C++ audio front ends that read from a device
//         into a preallocated tensor (no allocation per block)
// KIND: bug
// HARM: every block's loudness equals the last block's
#include <torch/torch.h>
#include <iostream>
#include <cmath>
#include <vector>

// Reads block i of the stream into buf in place; false at end of stream.
bool read_block(torch::Tensor& buf, int64_t i) {
  if (i >= 3) return false;
  buf.copy_(torch::full({buf.size(0)}, 0.1 * (i + 1)));   // BUG(libtorch-inplace-on-view)
  return true;
}

int main() {
  const int64_t block = 8, frame = 4;
  auto buf = torch::empty({block});
  std::vector<torch::Tensor> first_frames;
  for (int64_t i = 0; read_block(buf, i); ++i) {          // BUG(libtorch-inplace-on-view)
    first_frames.push_back(buf.split(frame)[0]);          // BUG(libtorch-inplace-on-view)
  }
  auto loudness = torch::stack(first_frames).pow(2).mean(1).sqrt();   // BUG(libtorch-inplace-on-view)
  std::cout << "per-block RMS: " << loudness << "\n";
  float first = loudness[0].item<float>();
  if (std::abs(first - 0.1f) > 1e-4f)
    std::cout << "HARM: block 0 RMS should be 0.1 but reads " << first << "\n";
  return 0;
}
