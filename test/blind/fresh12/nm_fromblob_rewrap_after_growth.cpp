// CASE: a streaming keyword spotter appends packets to a std::vector<float>
//       that grows past its capacity, and a const member function returns
//       torch::from_blob(samples_.data(), ...) over the head of the utterance
//       whenever a scorer asks for it; the scorer reduces the view at once
// SOURCE: the kind of code in libtorch audio servers that wrap a receive
//         vector with from_blob to avoid a copy
// KIND: near-miss
// WHY-OK: the view is rebuilt from data() on every call, after any growth, and
//         every caller reduces it before the next append; nothing keeps the
//         wrapped pointer across a reallocation
#include <torch/torch.h>

#include <iostream>
#include <numeric>
#include <vector>

namespace kws {

class Utterance {
 public:
  static constexpr int64_t kHead = 48;

  void append(const std::vector<float>& packet) {
    samples_.insert(samples_.end(), packet.begin(), packet.end());
  }
  bool has_head() const { return static_cast<int64_t>(samples_.size()) >= kHead; }
  torch::Tensor head() const {
    return torch::from_blob(const_cast<float*>(samples_.data()), {kHead});
  }

 private:
  std::vector<float> samples_;
};

float head_energy(const Utterance& u) { return u.head().square().mean().item<float>(); }

}  // namespace kws

int main() {
  kws::Utterance u;
  std::vector<float> all;
  std::vector<float> energies;
  for (int t = 0; t < 10; ++t) {
    std::vector<float> packet(16);
    std::iota(packet.begin(), packet.end(), static_cast<float>(16 * t));
    for (auto& v : packet) v = 0.01f * v + 0.5f;
    all.insert(all.end(), packet.begin(), packet.end());
    u.append(packet);
    std::vector<float> scratch(kws::Utterance::kHead, -3.0f);  // per-packet work buffer
    if (u.has_head()) energies.push_back(kws::head_energy(u));
  }
  auto expected = torch::tensor(std::vector<float>(all.begin(), all.begin() + kws::Utterance::kHead)).square().mean().item<float>();
  bool ok = true;
  for (float e : energies) ok = ok && std::abs(e - expected) < 1e-6f;
  if (!ok)
    std::cout << "HARM: head energy drifted to " << energies.back() << " from " << expected << "\n";
  else
    std::cout << energies.size() << " head energies, all " << expected << "\n";
  return 0;
}
