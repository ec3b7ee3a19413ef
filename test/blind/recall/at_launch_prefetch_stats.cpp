// CASE: a video pipeline computes per-channel normalisation statistics of the
//       current frame with at::launch on the inter-op pool, while the decode
//       loop writes the next frame into the same frame tensor
// SOURCE: https://github.com/openmm/openmm-torch/pull/16 (a tensor still read
//         asynchronously was overwritten by the next step; fixed by an
//         explicit copy)
// KIND: bug
// HARM: the statistics computed for frame 0 are those of frame 1
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdio>
#include <future>

static void decode_into(torch::Tensor& frame, int index) {
  // Pretend decoder: frame i has a constant brightness of 10 * (i + 1).
  frame.fill_(10.0 * (index + 1));
  frame.select(0, 1).mul_(0.5);
}

int main() {
  torch::Tensor frame = torch::empty({3, 24, 32});
  decode_into(frame, 0);
  const float expected_mean = frame.select(0, 0).mean().item<float>();

  std::promise<void> decoder_busy;
  auto decoder_done = decoder_busy.get_future().share();
  std::promise<torch::Tensor> stats;
  auto stats_ready = stats.get_future();

  // Statistics run on the inter-op thread pool so the decoder can keep going.
  at::launch([frame, decoder_done, &stats] {  // BUG(libtorch-worker-missing-clone)
    decoder_done.wait();                      // the pool is shared with the decoder
    stats.set_value(frame.mean({1, 2}));
  });

  decode_into(frame, 1);  // BUG(libtorch-worker-missing-clone)
  decoder_busy.set_value();

  torch::Tensor channel_means = stats_ready.get();
  const float got = channel_means[0].item<float>();
  std::printf("frame 0 channel-0 mean: computed %.2f, expected %.2f\n", got, expected_mean);
  if (got != expected_mean) {
    std::printf("HARM: normalisation statistics of frame 0 came from frame 1 (%.2f != %.2f)\n",
                got, expected_mean);
  }
  return 0;
}
