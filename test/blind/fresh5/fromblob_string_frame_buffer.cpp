// CASE: a depth-camera receiver reads every datagram into one std::string
//       member buffer and returns torch::from_blob over buf_.data(); the
//       caller keeps the returned tensor as the previous frame for change
//       detection, but the next receive overwrites the string's bytes under it
// SOURCE: robotics sensor drivers feeding libtorch models from UDP/ROS
//         messages stored in std::string/byte buffers; from_blob lifetime
//         (the memory must outlive the tensor):
//         https://www.cnblogs.com/carsonzhu/p/16982238.html
// KIND: bug
// HARM: the change detector sees a zero difference between consecutive frames
//       although the scene moved
#include <torch/torch.h>

#include <cstring>
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

class DepthReceiver {
 public:
  DepthReceiver() : buf_(kH * kW, '\0') {}
  torch::Tensor next(int seq) {
    sensor_recv(&buf_[0], buf_.size(), seq);
    return torch::from_blob(&buf_[0], {kH, kW}, torch::kUInt8);  // BUG(libtorch-from-blob-escape)
  }

 private:
  std::string buf_;
};

int main() {
  DepthReceiver rx;
  torch::Tensor prev;
  for (int seq = 0; seq < 3; ++seq) {
    torch::Tensor frame = rx.next(seq);  // BUG(libtorch-from-blob-escape)
    if (prev.defined()) {
      double change = (frame.to(torch::kFloat) - prev.to(torch::kFloat)).abs().mean().item<double>();
      std::cout << "frame " << seq << " change vs previous " << change << "\n";
      if (change == 0.0)
        std::cout << "HARM: frame " << seq << " shows no change against the previous frame though the object moved 4 px\n";
    }
    prev = frame;  // BUG(libtorch-from-blob-escape)
  }
  return 0;
}
