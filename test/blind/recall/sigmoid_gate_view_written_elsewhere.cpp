// CASE: an LSTM-like cell slices its forget gate out of the sigmoid output
//       in one helper and a second helper floors that slice in place with
//       index_put_; SigmoidBackward needs the unmodified output
// SOURCE: https://github.com/pytorch/pytorch/issues/9391 (assigning into the
//         output of sigmoid makes backward raise "modified by an inplace
//         operation")
// KIND: bug
// HARM: backward throws; the cell cannot be trained
#include <torch/torch.h>

#include <cstdio>

using torch::indexing::Slice;

static torch::Tensor forget_gate(const torch::Tensor& gates, int64_t hidden) {
  return gates.narrow(1, 0, hidden);  // BUG(libtorch-detached-write)
}

// Keeps the cell from forgetting everything at initialisation.
static void floor_gate(torch::Tensor gate, double floor) {
  gate.index_put_({gate < floor}, floor);  // BUG(libtorch-detached-write)
}

int main() {
  torch::manual_seed(25);
  const int64_t hidden = 4;
  torch::nn::Linear gates_proj(6 + hidden, 3 * hidden);
  auto x = torch::randn({2, 6});
  auto h = torch::zeros({2, hidden});
  auto c = torch::randn({2, hidden});

  auto gates = torch::sigmoid(gates_proj(torch::cat({x, h}, 1)));
  auto f = forget_gate(gates, hidden);
  floor_gate(f, 0.3);
  auto i = gates.narrow(1, hidden, hidden);
  auto o = gates.narrow(1, 2 * hidden, hidden);
  auto c_next = f * c + i * torch::tanh(c);
  auto h_next = o * torch::tanh(c_next);
  try {
    h_next.sum().backward();  // BUG(libtorch-detached-write)
    std::printf("backward succeeded\n");
  } catch (const c10::Error& e) {
    std::printf("HARM: %s\n", e.what_without_backtrace());
  }
  return 0;
}
