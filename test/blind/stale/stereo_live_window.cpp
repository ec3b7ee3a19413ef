// CASE: a decoder refills one stereo staging buffer per packet; the left and
//       right channels are select() views made once before the loop and read
//       in each iteration after that iteration's refill
// SOURCE: the kind of code in C++ audio pipelines feeding a model from a
//         preallocated (often pinned) staging tensor
// KIND: near-miss
// WHY-OK: the views are live windows on purpose; each read follows the
//         refill whose values it means
#include <torch/torch.h>
#include <iostream>

// Decodes packet p into staging (2 x N) in place.
void decode_packet(torch::Tensor& staging, int p) {
  staging.select(0, 0).fill_(float(p + 1));
  staging.select(0, 1).fill_(-float(p + 1));
}

int main() {
  const int64_t n = 256;
  auto staging = torch::empty({2, n});
  auto left = staging.select(0, 0);
  auto right = staging.select(0, 1);
  double left_energy = 0, balance = 0;
  for (int p = 0; p < 4; ++p) {
    decode_packet(staging, p);
    left_energy += left.pow(2).sum().item<double>();
    balance += (left + right).abs().sum().item<double>();
  }
  double expected = double(n) * (1 + 4 + 9 + 16);
  std::cout << "left energy " << left_energy << " (expected " << expected << "), balance "
            << balance << "\n";
  if (left_energy != expected || balance != 0)
    std::cout << "HARM: per-packet energy is wrong: " << left_energy << "\n";
  return 0;
}
