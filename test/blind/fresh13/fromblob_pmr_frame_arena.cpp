// CASE: a robot's audio pipeline decodes each frame into a std::pmr::vector
//       carved from a per-frame std::pmr::monotonic_buffer_resource that is
//       release()d at the end of the frame, and keeps torch::from_blob views
//       of the decoded samples in a history deque for the wake-word model;
//       after release() the next frame is decoded into the same bytes
// SOURCE: the kind of code in C++ real-time / robotics loops that use
//         per-frame arenas to avoid heap allocation
// KIND: bug
// HARM: the history holds the newest frame's samples in every slot

#include <torch/torch.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <deque>
#include <memory_resource>
#include <vector>

// Stand-in for the codec: frame k is a tone at amplitude k + 1.
void decode_frame(int k, std::pmr::vector<float>& pcm) {
  for (size_t i = 0; i < pcm.size(); ++i)
    pcm[i] = static_cast<float>(k + 1) * std::sin(0.05f * static_cast<float>(i));
}

class WakeWordFrontEnd {
 public:
  explicit WakeWordFrontEnd(size_t depth) : depth_(depth) {}
  void push(torch::Tensor frame) {
    history_.push_back(std::move(frame));  // BUG(libtorch-from-blob-escape)
    if (history_.size() > depth_) history_.pop_front();
  }
  const std::deque<torch::Tensor>& history() const { return history_; }

 private:
  size_t depth_;
  std::deque<torch::Tensor> history_;
};

int main() {
  const int64_t samples = 320;  // 20 ms at 16 kHz
  alignas(std::max_align_t) static std::array<std::byte, 1 << 14> frame_memory;
  std::pmr::monotonic_buffer_resource arena(frame_memory.data(), frame_memory.size(),
                                            std::pmr::null_memory_resource());
  WakeWordFrontEnd front_end(4);
  std::vector<float> expected_rms;

  for (int k = 0; k < 4; ++k) {
    {
      std::pmr::vector<float> pcm(samples, &arena);
      decode_frame(k, pcm);
      torch::Tensor frame = torch::from_blob(pcm.data(), {samples}, torch::kFloat);  // BUG(libtorch-from-blob-escape)
      expected_rms.push_back(frame.pow(2).mean().sqrt().item<float>());
      front_end.push(frame);  // BUG(libtorch-from-blob-escape)
    }
    // End of frame: reset the arena for the next one.
    arena.release();  // BUG(libtorch-from-blob-escape)
  }

  bool harmed = false;
  int slot = 0;
  for (const auto& frame : front_end.history()) {
    float rms = frame.pow(2).mean().sqrt().item<float>();
    std::printf("history[%d]: rms %.4f (decoded %.4f)\n", slot, rms, expected_rms[slot]);
    if (!harmed && std::abs(rms - expected_rms[slot]) > 1e-4) {
      std::printf("HARM: history slot %d reads rms %.4f, but that frame decoded to %.4f "
                  "(its arena memory was reused)\n", slot, rms, expected_rms[slot]);
      harmed = true;
    }
    ++slot;
  }
  return 0;
}
