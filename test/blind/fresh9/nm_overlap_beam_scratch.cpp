// CASE: a GRU beam-search decoder reorders its beams' hidden states after
//       each top-k by gathering the parents' rows into a preallocated scratch
//       tensor with torch::index_select_out(scratch_, hidden_, 0, parent) and
//       copying the scratch back into hidden_
// SOURCE: the kind of code in libtorch seq2seq/ASR beam-search decoders
//         (reorder the decoder state by back-pointers every step)
// KIND: near-miss
// WHY-OK: the gather writes a separate buffer that shares no memory with
//         hidden_, and the copy back is from that disjoint buffer
#include <torch/torch.h>

#include <iostream>
#include <vector>

class BeamDecoder {
 public:
  BeamDecoder(int64_t vocab, int64_t hid, int64_t beam)
      : emb_(vocab, hid), cell_(hid, hid), out_(hid, vocab), beam_(beam) {
    hidden_ = torch::randn({beam, hid});
    scratch_ = torch::empty({beam, hid});
    scores_ = torch::zeros({beam});
    tokens_ = torch::zeros({beam}, torch::kLong);
  }

  void step() {
    torch::NoGradGuard ng;
    hidden_ = cell_(emb_(tokens_), hidden_);
    auto logp = torch::log_softmax(out_(hidden_), 1);
    const int64_t V = logp.size(1);
    auto [best, flat] = (scores_.unsqueeze(1) + logp).view({-1}).topk(beam_);
    auto parent = flat.div(V, "floor");
    tokens_ = flat.remainder(V);
    scores_ = best;
    torch::index_select_out(scratch_, hidden_, 0, parent);
    hidden_.copy_(scratch_);
  }
  const torch::Tensor& tokens() const { return tokens_; }

 private:
  torch::nn::Embedding emb_;
  torch::nn::GRUCell cell_;
  torch::nn::Linear out_;
  int64_t beam_;
  torch::Tensor hidden_, scratch_, scores_, tokens_;
};

int main() {
  torch::manual_seed(0);
  BeamDecoder dec(50, 16, 4);
  try {
    for (int t = 0; t < 5; ++t) dec.step();
    std::cout << "beam tokens " << dec.tokens() << "\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: beam reorder failed: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
