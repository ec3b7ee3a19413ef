// CASE: a depth-camera receiver alternates between two std::string receive
//       buffers and returns torch::from_blob over the one it just filled; the
//       documented contract is that a frame stays valid until the next-but-one
//       receive, and the caller keeps exactly one previous frame for change
//       detection
// SOURCE: robotics sensor drivers feeding libtorch models from UDP/ROS
//         messages stored in std::string/byte buffers (double-buffered
//         receive to avoid a copy per frame)
// KIND: near-miss
// WHY-OK: receive k writes the buffer that held frame k-2, which the caller
//         no longer references; the previous frame (k-1) lives in the other
//         buffer, which outlives every tensor made over it
#include <torch/torch.h>

#include <array>
#include <iostream>
#include <string>

constexpr int64_t kH = 24, kW = 32;

// Stand-in for ::recv(): the sensor sends one full uint8 depth image per datagram.
size_t sensor_recv(char* dst, size_t n, int seq) {
  for (size_t i = 0; i < n; ++i) {
    int64_t col = int64_t(i) % kW;
    dst[i] = static_cast<char>((col >= seq * 4 && col < seq * 4 + 6) ? 200 : 40);  // object moving right
  }
  return n;
}

class PingPongDepthReceiver {
 public:
  PingPongDepthReceiver() { bufs_.fill(std::string(kH * kW, '\0')); }
  // The returned tensor is valid until the receive after the next one.
  torch::Tensor next(int seq) {
    std::string& buf = bufs_[slot_];
    slot_ ^= 1;
    sensor_recv(&buf[0], buf.size(), seq);
    return torch::from_blob(&buf[0], {kH, kW}, torch::kUInt8);
  }

 private:
  std::array<std::string, 2> bufs_;
  int slot_ = 0;
};

int main() {
  PingPongDepthReceiver rx;
  torch::Tensor prev;
  for (int seq = 0; seq < 4; ++seq) {
    torch::Tensor frame = rx.next(seq);
    if (prev.defined()) {
      double change = (frame.to(torch::kFloat) - prev.to(torch::kFloat)).abs().mean().item<double>();
      std::cout << "frame " << seq << " change vs previous " << change << "\n";
      if (change == 0.0) std::cout << "MISMATCH: frame " << seq << " shows no change\n";
    }
    prev = frame;
  }
  return 0;
}
