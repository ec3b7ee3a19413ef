// CASE: an IMU reader parses one packet into a local std::vector<float> and
//       returns `torch::from_blob(samples.data(), {16, 6})` — no clone — so
//       the tensor outlives the vector; the caller decodes the next packet
//       (another vector of the same size) before running the model
// SOURCE: the kind of code in libtorch sensor-fusion / HAR inference loops;
//         cf. discuss.pytorch.org "torch::from_blob returns garbage after the
//         function returns" and the from_blob docs ("does not take ownership")
// KIND: bug
// HARM: the returned tensor reads freed heap memory: the allocator's
//       free-list words and then the next packet's samples replace the
//       window the model is given
#include <torch/torch.h>
#include <iostream>
#include <vector>

constexpr int64_t kSteps = 16, kAxes = 6;

std::vector<float> parse_packet(int seq) {
  std::vector<float> samples(kSteps * kAxes);
  for (int64_t i = 0; i < kSteps * kAxes; ++i) samples[i] = seq * 1000.0f + i;
  return samples;
}

torch::Tensor read_imu_window(int seq) {
  std::vector<float> samples = parse_packet(seq);
  return torch::from_blob(samples.data(), {kSteps, kAxes}, torch::kFloat); // BUG(libtorch-from-blob-escape)
}

int main() {
  auto window = read_imu_window(1);                  // packet 1: 1000, 1001, ...
  std::vector<float> next_packet = parse_packet(2);  // reuses the freed block
  auto expected = torch::arange(kSteps * kAxes, torch::kFloat).view({kSteps, kAxes}) + 1000;
  std::cout << "window[0][0] = " << window[0][0].item<float>() << " (expected 1000)\n";
  if (!window.equal(expected))
    std::cout << "HARM: the window no longer holds packet 1; " << (window != expected).sum().item<int64_t>()
              << " of " << window.numel() << " samples differ\n";
  return 0;
}
