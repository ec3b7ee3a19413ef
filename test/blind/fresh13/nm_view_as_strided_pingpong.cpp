// CASE: a streaming ASR front end keeps two rings of feature frames and
//       exposes the stacked context windows as an as_strided() view of the
//       current ring; push() builds the shifted ring in the other buffer and
//       flips, so the previous chunk's windows (a view of the old ring) stay
//       intact while the deltas are computed
// SOURCE: the kind of code in C++ streaming speech front ends (frame
//         stacking with as_strided, delta/acceleration features)
// KIND: near-miss
// WHY-OK: the ring the "previous" view points into is not written until the
//         next push(), and the previous view is re-taken before that

#include <torch/torch.h>

#include <array>
#include <cstdio>

class StreamingFrontEnd {
 public:
  StreamingFrontEnd(int64_t ring, int64_t dim, int64_t context)
      : rings_{torch::zeros({ring, dim}), torch::zeros({ring, dim})}, context_(context) {}

  // [ring - context + 1, context * dim] windows of consecutive frames.
  torch::Tensor stacked() const {
    const torch::Tensor& r = rings_[current_];
    const int64_t T = r.size(0), D = r.size(1);
    return r.as_strided({T - context_ + 1, context_ * D}, {D, 1});
  }

  // Writes "old ring minus the oldest `hop` frames plus the new ones" into
  // the other ring, then makes it current.
  void push(const torch::Tensor& frames) {
    const int64_t hop = frames.size(0), T = rings_[current_].size(0);
    torch::Tensor& next = rings_[1 - current_];
    next.narrow(0, 0, T - hop).copy_(rings_[current_].narrow(0, hop, T - hop));
    next.narrow(0, T - hop, hop).copy_(frames);
    current_ = 1 - current_;
  }

 private:
  std::array<torch::Tensor, 2> rings_;
  int64_t context_;
  int current_ = 0;
};

torch::Tensor fake_fbank(int64_t chunk, int64_t hop, int64_t dim) {
  auto t = torch::arange(chunk * hop, (chunk + 1) * hop, torch::kFloat).unsqueeze(1);
  return torch::sin(0.3 * t + 0.1 * torch::arange(dim, torch::kFloat).unsqueeze(0));
}

int main() {
  const int64_t ring = 12, dim = 5, context = 3, hop = 4;
  StreamingFrontEnd fe(ring, dim, context);
  for (int64_t c = 0; c < 3; ++c) fe.push(fake_fbank(c, hop, dim));

  torch::Tensor previous = fe.stacked();
  torch::Tensor previous_copy = previous.clone();  // for the check only
  for (int64_t c = 3; c < 5; ++c) {
    fe.push(fake_fbank(c, hop, dim));
    torch::Tensor current = fe.stacked();
    torch::Tensor delta = current - previous;
    torch::Tensor expected = current - previous_copy;
    std::printf("chunk %lld: |delta| = %.4f (expected %.4f)\n", static_cast<long long>(c),
                delta.abs().sum().item<float>(), expected.abs().sum().item<float>());
    if (!torch::allclose(delta, expected))
      std::printf("HARM: the chunk-to-chunk delta is %.4f instead of %.4f\n",
                  delta.abs().sum().item<float>(), expected.abs().sum().item<float>());
    previous = current;
    previous_copy = current.clone();
  }
  return 0;
}
