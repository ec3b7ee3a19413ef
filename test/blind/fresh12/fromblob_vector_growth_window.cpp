// CASE: a streaming speaker-ID front end wraps the first full window of an
//       utterance with torch::from_blob(samples.data(), ...) and keeps it in
//       the session as the enrolment window, while later packets keep being
//       appended to the same std::vector; the first growth past its capacity
//       reallocates and frees the memory the tensor wraps
// SOURCE: the kind of code in libtorch audio/VAD servers that avoid a copy by
//         wrapping a receive vector with from_blob
// KIND: bug
// HARM: the enrolment window reads freed (and reused) memory instead of the
//       first samples of the utterance
#include <torch/torch.h>

#include <iostream>
#include <vector>

namespace spk {

constexpr int64_t kWindow = 64;

struct Session {
  std::vector<float> samples;
  torch::Tensor enrol_window;

  Session() { samples.reserve(kWindow); }

  void on_packet(const std::vector<float>& packet) {
    samples.insert(samples.end(), packet.begin(), packet.end());  // BUG(libtorch-from-blob-escape)
    if (!enrol_window.defined() && static_cast<int64_t>(samples.size()) >= kWindow)
      enrol_window = torch::from_blob(samples.data(), {kWindow});  // BUG(libtorch-from-blob-escape)
  }
};

std::vector<float> make_packet(int64_t start, int64_t n) {
  std::vector<float> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = 1.0f + 0.01f * static_cast<float>(start + i);
  return p;
}

}  // namespace spk

int main() {
  spk::Session s;
  const int64_t packet = 16;
  std::vector<float> first(spk::kWindow);
  for (int64_t t = 0; t < 8; ++t) {
    auto p = spk::make_packet(t * packet, packet);
    if (t * packet < spk::kWindow) std::copy(p.begin(), p.end(), first.begin() + t * packet);
    s.on_packet(p);  // BUG(libtorch-from-blob-escape)
    std::vector<float> denoise_scratch(spk::kWindow, -7.0f);  // per-packet work buffer
    (void)denoise_scratch;
  }
  auto expected = torch::tensor(first);
  auto seen = s.enrol_window.clone();
  if (!torch::equal(seen, expected))
    std::cout << "HARM: enrolment window starts " << seen[0].item<float>() << ", "
              << seen[1].item<float>() << " instead of " << expected[0].item<float>() << ", "
              << expected[1].item<float>() << "\n";
  else
    std::cout << "enrolment window intact\n";
  return 0;
}
