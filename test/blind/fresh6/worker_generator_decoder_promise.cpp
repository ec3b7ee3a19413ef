// CASE: a resumable (generator-style) decoder yields its running beam scores
//       after every step; the caller fulfils one promise per step so an
//       LM-rescoring thread can work in parallel, and the next resume()
//       accumulates the step log-probs into the same score tensor in place
// SOURCE: the kind of code from speech/NMT decoders that overlap n-best
//         rescoring with decoding (std::promise hand-off per step);
//         https://github.com/pytorch/pytorch/issues/18128 (promises of tensors
//         between producer and consumer threads in libtorch)
// KIND: bug
// HARM: the rescorer's score for step k is computed from the final scores
#include <torch/torch.h>

#include <chrono>
#include <future>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

struct TinyDecoderImpl : torch::nn::Module {
  TinyDecoderImpl(int64_t vocab, int64_t hidden)
      : emb(register_module("emb", torch::nn::Embedding(vocab, hidden))),
        cell(register_module("cell", torch::nn::GRUCell(hidden, hidden))),
        out(register_module("out", torch::nn::Linear(hidden, vocab))) {}
  std::pair<torch::Tensor, torch::Tensor> step(const torch::Tensor& tok, const torch::Tensor& h) {
    auto h2 = cell(emb(tok), h);
    return {torch::log_softmax(out(h2), -1), h2};
  }
  torch::nn::Embedding emb;
  torch::nn::GRUCell cell;
  torch::nn::Linear out;
};
TORCH_MODULE(TinyDecoder);

class BeamStepper {
 public:
  BeamStepper(TinyDecoder model, torch::Tensor init_hidden, int64_t max_len)
      : model_(std::move(model)), hidden_(std::move(init_hidden)), max_len_(max_len) {}

  // Advances the state machine by one transition and yields the scores.
  std::optional<torch::Tensor> resume() {
    torch::NoGradGuard no_grad;
    switch (state_) {
      case State::Start:
        scores_ = torch::zeros({hidden_.size(0)});
        tokens_ = torch::zeros({hidden_.size(0)}, torch::kLong);
        state_ = State::Expand;
        return scores_;                                   // BUG(libtorch-worker-missing-clone)
      case State::Expand: {
        auto [logp, h] = model_->step(tokens_, hidden_);
        hidden_ = h;
        auto [best, arg] = logp.max(1);
        scores_.add_(best);                               // BUG(libtorch-worker-missing-clone)
        tokens_ = arg;
        if (++len_ == max_len_) state_ = State::Done;
        return scores_;                                   // BUG(libtorch-worker-missing-clone)
      }
      case State::Done:
        break;
    }
    return std::nullopt;
  }

 private:
  enum class State { Start, Expand, Done };
  State state_ = State::Start;
  TinyDecoder model_;
  torch::Tensor hidden_, scores_, tokens_;
  int64_t len_ = 0, max_len_;
};

int main() {
  torch::manual_seed(5);
  const int64_t vocab = 50, hidden = 32, beam = 4, max_len = 6;
  TinyDecoder model(vocab, hidden);
  BeamStepper stepper(model, torch::randn({beam, hidden}), max_len);

  std::vector<std::promise<torch::Tensor>> handoff(max_len + 1);
  std::vector<float> rescored(max_len + 1), at_yield(max_len + 1);
  std::thread rescorer([&] {
    for (size_t k = 0; k < handoff.size(); ++k) {
      auto scores = handoff[k].get_future().get();
      std::this_thread::sleep_for(std::chrono::milliseconds(40));  // external LM round trip
      rescored[k] = torch::logsumexp(scores, 0).item<float>();
    }
  });

  size_t k = 0;
  while (auto scores = stepper.resume()) {
    at_yield[k] = torch::logsumexp(*scores, 0).item<float>();
    handoff[k++].set_value(*scores);                      // BUG(libtorch-worker-missing-clone)
  }
  rescorer.join();

  size_t worst = 0;
  for (size_t i = 0; i < rescored.size(); ++i) {
    std::cout << "step " << i << ": yielded " << at_yield[i] << ", rescored " << rescored[i] << "\n";
    if (std::abs(rescored[i] - at_yield[i]) > std::abs(rescored[worst] - at_yield[worst])) worst = i;
  }
  if (std::abs(rescored[worst] - at_yield[worst]) > 1e-4f)
    std::cout << "HARM: the rescorer scored step " << worst << " as " << rescored[worst]
              << " but the decoder yielded " << at_yield[worst] << " at that step\n";
  return 0;
}
