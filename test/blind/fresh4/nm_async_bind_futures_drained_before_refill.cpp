// CASE: a multi-microphone front-end reads each block of audio into one
//       staging tensor and fans per-channel feature extraction out to
//       std::async tasks built with std::bind over a member function, keeping
//       the futures in a vector; every future is drained before the staging
//       tensor is refilled with the next block
// SOURCE: libtorch audio recognition engines that fan feature extraction out
//         to threads (https://pytorch.org/blog/optimizing-libtorch/)
// KIND: near-miss
// WHY-OK: the tasks only read the staging tensor, and the refill happens
//         after all of their futures have been waited for
#include <torch/torch.h>

#include <functional>
#include <future>
#include <iostream>
#include <vector>

class FrameEnergy {
 public:
  explicit FrameEnergy(int64_t hop) : hop_(hop) {}

  // log energy per hop-sized frame of one channel
  torch::Tensor channel(const torch::Tensor& block, int64_t c) const {
    auto frames = block[c].view({-1, hop_});
    return torch::log(frames.pow(2).sum(1) + 1e-6);
  }

 private:
  int64_t hop_;
};

int main() {
  torch::manual_seed(0);
  const int64_t channels = 4, samples = 160, blocks = 3;
  auto recording = torch::randn({blocks, channels, samples});
  auto staging = torch::empty({channels, samples});
  FrameEnergy extractor(40);

  std::vector<torch::Tensor> features;
  for (int64_t b = 0; b < blocks; ++b) {
    staging.copy_(recording[b]);  // "read from the device"
    std::vector<std::future<torch::Tensor>> pending;
    for (int64_t c = 0; c < channels; ++c)
      pending.push_back(std::async(std::launch::async,
                                   std::bind(&FrameEnergy::channel, &extractor, staging, c)));
    std::vector<torch::Tensor> per_channel;
    for (auto& f : pending) per_channel.push_back(f.get());
    features.push_back(torch::stack(per_channel));
  }

  auto expected = torch::log(recording.view({blocks, channels, -1, 40}).pow(2).sum(3) + 1e-6);
  const double error = (torch::stack(features) - expected).abs().max().item<double>();
  std::cout << "features " << torch::stack(features).sizes() << ", max error " << error << "\n";
  if (error > 1e-5) std::cout << "HARM: features mix blocks, error " << error << "\n";
  return 0;
}
