// CASE: a streaming ASR front end keeps a ring of feature frames and exposes
//       the stacked context windows as an as_strided() view of the ring;
//       the delta features keep the previous chunk's windows in a variable,
//       the ring is shifted and refilled in place, and the "previous"
//       windows are read again to compute the deltas
// SOURCE: the kind of code in C++ streaming speech front ends (frame
//         stacking with as_strided, delta/acceleration features)
// KIND: bug
// HARM: the deltas between consecutive chunks come out as zero

#include <torch/torch.h>

#include <cstdio>

class StreamingFrontEnd {
 public:
  StreamingFrontEnd(int64_t ring, int64_t dim, int64_t context)
      : ring_(torch::zeros({ring, dim})), context_(context) {}

  // [ring - context + 1, context * dim] windows of consecutive frames.
  torch::Tensor stacked() const {
    const int64_t T = ring_.size(0), D = ring_.size(1);
    return ring_.as_strided({T - context_ + 1, context_ * D}, {D, 1});  // BUG(libtorch-inplace-on-view)
  }

  // Drops the oldest `hop` frames and appends the new ones, in place.
  void push(const torch::Tensor& frames) {
    const int64_t hop = frames.size(0), T = ring_.size(0);
    ring_.copy_(torch::roll(ring_, -hop, 0));  // BUG(libtorch-inplace-on-view)
    ring_.narrow(0, T - hop, hop).copy_(frames);  // BUG(libtorch-inplace-on-view)
  }

 private:
  torch::Tensor ring_;
  int64_t context_;
};

torch::Tensor fake_fbank(int64_t chunk, int64_t hop, int64_t dim) {
  auto t = torch::arange(chunk * hop, (chunk + 1) * hop, torch::kFloat).unsqueeze(1);
  return torch::sin(0.3 * t + 0.1 * torch::arange(dim, torch::kFloat).unsqueeze(0));
}

int main() {
  const int64_t ring = 12, dim = 5, context = 3, hop = 4;
  StreamingFrontEnd fe(ring, dim, context);
  for (int64_t c = 0; c < 3; ++c) fe.push(fake_fbank(c, hop, dim));

  torch::Tensor previous = fe.stacked();  // BUG(libtorch-inplace-on-view)
  torch::Tensor previous_copy = previous.clone();  // for the check only
  for (int64_t c = 3; c < 5; ++c) {
    fe.push(fake_fbank(c, hop, dim));
    torch::Tensor current = fe.stacked();
    torch::Tensor delta = current - previous;  // BUG(libtorch-inplace-on-view)
    torch::Tensor expected = current - previous_copy;
    std::printf("chunk %lld: |delta| = %.4f (expected %.4f)\n", static_cast<long long>(c),
                delta.abs().sum().item<float>(), expected.abs().sum().item<float>());
    if (c == 3 && !torch::allclose(delta, expected))
      std::printf("HARM: the chunk-to-chunk delta is %.4f instead of %.4f; the previous "
                  "windows were a view of the ring that push() overwrote\n",
                  delta.abs().sum().item<float>(), expected.abs().sum().item<float>());
    previous = current;
    previous_copy = current.clone();
  }
  return 0;
}
