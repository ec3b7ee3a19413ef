// CASE: a streaming keyword-spotting RNN keeps two preallocated hidden-state
//       tensors and writes each frame's state with addmm_out into the one
//       that is not the current input, then swaps them
// SOURCE: on-device libtorch streaming models that avoid an allocation per
//       audio frame with out= variants
// KIND: near-miss
// WHY-OK: the out= tensor (h_next_) never aliases the matmul input (h_);
//       std::swap exchanges handles, not storage contents
#include <torch/torch.h>

#include <iostream>
#include <utility>

namespace {

class StreamingRNN {
 public:
  StreamingRNN(int64_t in, int64_t hid)
      : w_ih_t_(torch::randn({in, hid}) * 0.4),
        w_hh_t_(torch::randn({hid, hid}) * 0.4),
        b_(torch::randn({hid}) * 0.1),
        h_(torch::zeros({1, hid})),
        h_next_(torch::empty({1, hid})),
        xin_(torch::empty({1, hid})) {}

  const torch::Tensor& push(const torch::Tensor& frame) {
    torch::mm_out(xin_, frame, w_ih_t_);
    torch::addmm_out(h_next_, b_, h_, w_hh_t_);
    h_next_.add_(xin_).tanh_();
    std::swap(h_, h_next_);
    return h_;
  }

  torch::Tensor reference(const torch::Tensor& frames) const {
    auto h = torch::zeros({1, w_hh_t_.size(0)});
    for (int64_t t = 0; t < frames.size(0); ++t)
      h = torch::tanh(torch::addmm(b_, h, w_hh_t_) + torch::mm(frames.narrow(0, t, 1), w_ih_t_));
    return h;
  }

 private:
  torch::Tensor w_ih_t_, w_hh_t_, b_, h_, h_next_, xin_;
};

}  // namespace

int main() {
  torch::manual_seed(14);
  StreamingRNN rnn(8, 6);
  auto frames = torch::randn({10, 8});
  torch::Tensor h;
  for (int64_t t = 0; t < frames.size(0); ++t) h = rnn.push(frames.narrow(0, t, 1)).clone();
  auto want = rnn.reference(frames);
  auto err = (h - want).abs().max().item<float>();
  std::cout << "streamed state vs recurrence: max diff " << err << "\n";
  if (err > 1e-5f) std::cout << "HARM: the streamed hidden state drifted\n";
  return 0;
}
