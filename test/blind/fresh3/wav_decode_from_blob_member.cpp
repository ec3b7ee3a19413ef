// CASE: a WAV loader converts 16-bit PCM to floats in a local std::vector
//       and stores torch::from_blob over that vector into the clip struct it
//       fills; the vector dies when the loader returns
// SOURCE: the common libtorch audio/image loading pattern "from_blob over
//       my buffer" without .clone(); cf. the from_blob lifetime questions on
//       discuss.pytorch.org ("tensor values change after function returns")
// KIND: bug
// HARM: the clip's samples are overwritten once the heap reuses the freed
//       buffer
#include <torch/torch.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Clip {
  int sample_rate = 0;
  torch::Tensor samples;  // [n]
};

constexpr int64_t kSamples = 200;

std::string fake_wav_payload() {
  std::string bytes(kSamples * 2, '\0');
  for (int64_t i = 0; i < kSamples; ++i) {
    int16_t s = static_cast<int16_t>((i % 50) * 600 - 15000);
    std::memcpy(&bytes[i * 2], &s, 2);
  }
  return bytes;
}

void load_wav(const std::string& payload, int rate, Clip& clip) {
  std::vector<float> pcm(payload.size() / 2);
  for (size_t i = 0; i < pcm.size(); ++i) {
    int16_t s;
    std::memcpy(&s, &payload[i * 2], 2);
    pcm[i] = s / 32768.0f;
  }
  clip.sample_rate = rate;
  clip.samples = torch::from_blob(pcm.data(), {static_cast<int64_t>(pcm.size())}, torch::kFloat);  // BUG(libtorch-from-blob-escape)
}

// The next stage allocates its own scratch of the same size.
float next_stage_scratch(int64_t n) {
  std::vector<float> scratch(n, 0.25f);
  float acc = 0.f;
  for (float v : scratch) acc += v;
  return acc;
}

}  // namespace

int main() {
  auto payload = fake_wav_payload();
  Clip clip;
  load_wav(payload, 16000, clip);  // BUG(libtorch-from-blob-escape)

  // Reference decode, done right.
  auto ref = torch::from_blob(const_cast<char*>(payload.data()), {kSamples}, torch::kShort).to(torch::kFloat) / 32768.0f;

  float sink = next_stage_scratch(kSamples);
  auto diff = (clip.samples - ref).abs().max().item<float>();  // BUG(libtorch-from-blob-escape)
  std::cout << "scratch " << sink << "; clip vs reference max diff " << diff << "\n";
  if (diff > 1e-6f) {
    std::cout << "HARM: the clip's samples were read from a freed vector (max error " << diff << ")\n";
  }
  return 0;
}
