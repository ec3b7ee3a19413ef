// CASE: a streaming keyword-spotting RNN written without torch::nn::RNN
//       updates its hidden state with addmm_out into the state tensor itself
//       (h = b + h @ W_hh^T + x @ W_ih^T) to avoid an allocation per audio
//       frame
// SOURCE: the kind of code in on-device libtorch streaming models (a
//       preallocated hidden state updated per frame with out= variants);
//       out= aliasing an input of a matmul is unsupported
// KIND: bug
// HARM: the hidden state after a few frames differs from the same
//       recurrence computed with fresh outputs
#include <torch/torch.h>

#include <iostream>

namespace {

class StreamingRNN {
 public:
  StreamingRNN(int64_t in, int64_t hid)
      : w_ih_t_(torch::randn({in, hid}) * 0.4),
        w_hh_t_(torch::randn({hid, hid}) * 0.4),
        b_(torch::randn({hid}) * 0.1),
        h_(torch::zeros({1, hid})),
        xin_(torch::empty({1, hid})) {}

  // Consumes one frame of features [1, in].
  const torch::Tensor& push(const torch::Tensor& frame) {
    torch::mm_out(xin_, frame, w_ih_t_);
    torch::addmm_out(h_, b_, h_, w_hh_t_);  // BUG(libtorch-overlapping-inplace)
    h_.add_(xin_).tanh_();
    return h_;
  }

  torch::Tensor reference(const torch::Tensor& frames) const {
    auto h = torch::zeros_like(h_);
    for (int64_t t = 0; t < frames.size(0); ++t)
      h = torch::tanh(torch::addmm(b_, h, w_hh_t_) + torch::mm(frames.narrow(0, t, 1), w_ih_t_));
    return h;
  }

 private:
  torch::Tensor w_ih_t_, w_hh_t_, b_, h_, xin_;
};

}  // namespace

int main() {
  torch::manual_seed(14);
  StreamingRNN rnn(8, 6);
  auto frames = torch::randn({10, 8});
  torch::Tensor h;
  for (int64_t t = 0; t < frames.size(0); ++t) h = rnn.push(frames.narrow(0, t, 1));
  auto want = rnn.reference(frames);
  std::cout << "streamed state " << h << "\nreference " << want << "\n";
  if (!torch::allclose(h, want, 1e-5, 1e-6)) {
    std::cout << "HARM: the hidden state written over its own input drifted "
              << (h - want).abs().max().item<float>() << " from the recurrence\n";
  }
  return 0;
}
