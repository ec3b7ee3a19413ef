// CASE: a resumable (generator-style) decoder yields its running hypothesis
//       scores after every step and the caller hands each one to an
//       LM-rescoring thread through a std::promise; the decoder then folds
//       the next step's log-probs into its scores
// SOURCE: the kind of code from speech/NMT decoders that overlap n-best
//         rescoring with decoding; https://github.com/pytorch/pytorch/issues/18128
// KIND: near-miss
// WHY-OK: each step rebinds scores_ to a new tensor (scores_ + best), so a
//         yielded handle is never written after it has been handed over
#include <torch/torch.h>

#include <chrono>
#include <future>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

struct TinyLMImpl : torch::nn::Module {
  TinyLMImpl(int64_t vocab, int64_t hidden)
      : emb(register_module("emb", torch::nn::Embedding(vocab, hidden))),
        rnn(register_module("rnn", torch::nn::LSTMCell(hidden, hidden))),
        out(register_module("out", torch::nn::Linear(hidden, vocab))) {}
  torch::Tensor step(const torch::Tensor& tok, std::tuple<torch::Tensor, torch::Tensor>& state) {
    state = rnn(emb(tok), state);
    return torch::log_softmax(out(std::get<0>(state)), -1);
  }
  torch::nn::Embedding emb;
  torch::nn::LSTMCell rnn;
  torch::nn::Linear out;
};
TORCH_MODULE(TinyLM);

class HypothesisStream {
 public:
  HypothesisStream(TinyLM model, int64_t beams, int64_t hidden, int64_t max_len)
      : model_(std::move(model)),
        state_(torch::zeros({beams, hidden}), torch::zeros({beams, hidden})),
        tokens_(torch::zeros({beams}, torch::kLong)), scores_(torch::zeros({beams})),
        max_len_(max_len) {}

  std::optional<torch::Tensor> next() {
    if (len_ > max_len_) return std::nullopt;
    if (len_++ == 0) return scores_;
    torch::NoGradGuard no_grad;
    auto logp = model_->step(tokens_, state_);
    auto [best, arg] = logp.max(1);
    scores_ = scores_ + best;
    tokens_ = arg;
    return scores_;
  }

 private:
  TinyLM model_;
  std::tuple<torch::Tensor, torch::Tensor> state_;
  torch::Tensor tokens_, scores_;
  int64_t len_ = 0, max_len_;
};

int main() {
  torch::manual_seed(67);
  const int64_t vocab = 40, hidden = 24, beams = 3, max_len = 5;
  HypothesisStream stream(TinyLM(vocab, hidden), beams, hidden, max_len);

  std::vector<std::promise<torch::Tensor>> handoff(max_len + 1);
  std::vector<double> rescored(max_len + 1), at_yield(max_len + 1);
  std::thread rescorer([&] {
    for (size_t k = 0; k < handoff.size(); ++k) {
      auto scores = handoff[k].get_future().get();
      std::this_thread::sleep_for(std::chrono::milliseconds(40));  // external LM round trip
      rescored[k] = torch::logsumexp(scores, 0).item<double>();
    }
  });
  size_t k = 0;
  while (auto scores = stream.next()) {
    at_yield[k] = torch::logsumexp(*scores, 0).item<double>();
    handoff[k++].set_value(*scores);
  }
  rescorer.join();

  for (size_t i = 0; i < rescored.size(); ++i)
    std::cout << "step " << i << ": yielded " << at_yield[i] << ", rescored " << rescored[i] << "\n";
  return 0;
}
