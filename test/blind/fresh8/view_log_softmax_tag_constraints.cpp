// CASE: a constrained NER tagger forbids entity tags on punctuation tokens by
//       filling the entity columns of its log_softmax output with -1e4,
//       through an index({Slice(), Slice(), Slice(first, None)}) view, inside
//       forward(); the NLL loss is then backpropagated
// SOURCE: the kind of code in libtorch sequence taggers (label constraints
//       applied after normalisation instead of on the logits), cf. PyTorch
//       issues on "output 0 of LogSoftmaxBackward0 is at version 1"
// KIND: bug
// HARM: backward throws because log_softmax saved the output that the mask
//       wrote into
#include <torch/torch.h>

#include <cstdio>
#include <string>

namespace ner {

using torch::indexing::None;
using torch::indexing::Slice;

constexpr int64_t kTags = 7;        // O, then B-/I- for PER, ORG, LOC
constexpr int64_t kFirstEntity = 1;

class ConstrainedTaggerImpl : public torch::nn::Module {
 public:
  ConstrainedTaggerImpl(int64_t vocab, int64_t width)
      : embed(register_module("embed", torch::nn::Embedding(vocab, width))),
        proj(register_module("proj", torch::nn::Linear(width, kTags))) {}

  torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& is_punct) {
    auto logp = torch::log_softmax(proj(embed(tokens)), -1);
    auto entity_cols = logp.index({Slice(), Slice(), Slice(kFirstEntity, None)});  // BUG(libtorch-inplace-on-view)
    entity_cols.masked_fill_(is_punct.unsqueeze(-1), -1e4);  // BUG(libtorch-inplace-on-view)
    return logp;
  }

  torch::nn::Embedding embed;
  torch::nn::Linear proj;
};
TORCH_MODULE(ConstrainedTagger);

}  // namespace ner

int main() {
  torch::manual_seed(8);
  ner::ConstrainedTagger tagger(100, 16);
  torch::optim::Adam opt(tagger->parameters(), 1e-3);

  const auto tokens = torch::randint(0, 100, {4, 10}, torch::kLong);
  const auto is_punct = tokens < 10;  // the first ids are punctuation
  const auto tags = torch::randint(0, ner::kTags, {4, 10}, torch::kLong)
                        .masked_fill(is_punct, 0);

  opt.zero_grad();
  const auto logp = tagger->forward(tokens, is_punct);
  const auto loss = torch::nll_loss(logp.reshape({-1, ner::kTags}), tags.reshape({-1}));
  try {
    loss.backward();
    opt.step();
    std::printf("loss %.4f\n", loss.item<double>());
  } catch (const c10::Error& e) {
    const std::string what = e.what();
    std::printf("HARM: tagger backward failed: %s\n", what.substr(0, what.find('\n')).c_str());
  }
  return 0;
}
