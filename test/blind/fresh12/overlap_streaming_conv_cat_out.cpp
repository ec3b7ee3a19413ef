// CASE: a streaming causal 1-D convolution over time-major features keeps
//       the last K-1 frames in ctx_ ([K-1+hop, C]) and appends each incoming
//       hop with at::cat_out(ctx_, {ctx_.narrow(0, hop, K - 1), chunk}, 0),
//       reusing ctx_ as the output of the concatenation that reads its own
//       tail (K - 1 > hop, so the kept frames overlap the frames written)
// SOURCE: the kind of code in libtorch streaming ASR / keyword-spotting front
//         ends (chunked convolution with a rolling context buffer)
// KIND: bug
// HARM: the shifted context overlaps the written buffer; cat_out refuses it at
//       run time (or would read samples it already overwrote)
#include <torch/torch.h>

#include <iostream>

namespace kws {

namespace F = torch::nn::functional;

class StreamingConv1d {
 public:
  StreamingConv1d(int64_t channels, int64_t kernel, int64_t hop)
      : k_(kernel), hop_(hop), weight_(torch::randn({channels, 1, kernel})),
        ctx_(torch::zeros({kernel - 1 + hop, channels})) {}

  torch::Tensor push(const torch::Tensor& chunk) {  // chunk: [hop, C]
    at::cat_out(ctx_, {ctx_.narrow(0, hop_, k_ - 1), chunk}, 0);  // BUG(libtorch-overlapping-inplace)
    return F::conv1d(ctx_.t().unsqueeze(0), weight_, F::Conv1dFuncOptions().groups(ctx_.size(1))).squeeze(0);
  }

  torch::Tensor offline(const torch::Tensor& frames) const {  // reference on the whole signal
    auto signal = frames.t();
    auto padded = F::pad(signal, F::PadFuncOptions({k_ - 1, 0}));
    return F::conv1d(padded.unsqueeze(0), weight_, F::Conv1dFuncOptions().groups(signal.size(0))).squeeze(0);
  }

 private:
  int64_t k_, hop_;
  torch::Tensor weight_, ctx_;
};

}  // namespace kws

int main() {
  torch::manual_seed(0);
  const int64_t C = 2, K = 9, hop = 4, hops = 3;
  kws::StreamingConv1d conv(C, K, hop);
  auto frames = torch::randn({hop * hops, C});
  auto expected = conv.offline(frames);
  try {
    std::vector<torch::Tensor> outs;
    for (int64_t i = 0; i < hops; ++i) outs.push_back(conv.push(frames.narrow(0, i * hop, hop)));
    auto streamed = torch::cat(outs, 1);
    if (!torch::allclose(streamed, expected, 1e-4, 1e-5))
      std::cout << "HARM: streamed output differs from the offline convolution by "
                << (streamed - expected).abs().max().item<float>() << "\n";
    else
      std::cout << "streamed output matches\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: cat_out threw: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
