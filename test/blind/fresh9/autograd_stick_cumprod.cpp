// CASE: a stick-breaking neural topic model turns the exclusive products of
//       (1 - v) into an exclusive cumprod by shifting the cumprod output right
//       in place (narrow().copy_) and setting its first column to 1
//       (select().fill_), then backpropagates the ELBO
// SOURCE: the kind of code in libtorch ports of stick-breaking VAEs / neural
//         topic models (Nalisnick & Smyth 2017; Dirichlet-process priors)
// KIND: bug
// HARM: backward throws: CumprodBackward saved its output, which was then
//       modified in place through two views
#include <torch/torch.h>

#include <iostream>

namespace topic {

// v: [B, K-1] stick fractions in (0, 1) -> pi: [B, K] topic proportions
torch::Tensor stick_breaking(const torch::Tensor& v) {
  const int64_t k1 = v.size(1);
  auto remaining = torch::cumprod(1 - v, /*dim=*/1);             // prod_{j<=k} (1 - v_j)
  auto last = remaining.narrow(1, k1 - 1, 1).clone();            // what is left for topic K
  // exclusive product: slide right by one, the first stick starts at full length
  remaining.narrow(1, 1, k1 - 1).copy_(remaining.narrow(1, 0, k1 - 1).clone());  // BUG(libtorch-inplace-on-view)
  remaining.select(1, 0).fill_(1.0);  // BUG(libtorch-inplace-on-view)
  return torch::cat({v * remaining, last}, 1);
}

}  // namespace topic

struct EncoderImpl : torch::nn::Module {
  EncoderImpl(int64_t vocab, int64_t topics)
      : fc(register_module("fc", torch::nn::Linear(vocab, topics - 1))) {}
  torch::Tensor forward(const torch::Tensor& bow) { return torch::sigmoid(fc(bow)); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Encoder);

int main() {
  torch::manual_seed(0);
  const int64_t vocab = 30, topics = 5;
  Encoder enc(vocab, topics);
  torch::nn::Linear decoder(topics, vocab);
  auto bow = torch::randint(3, {8, vocab}).to(torch::kFloat);

  auto pi = topic::stick_breaking(enc(bow));
  std::cout << "proportions sum to " << pi.sum(1).mean().item<double>() << "\n";
  auto recon = torch::log_softmax(decoder(pi), 1);
  auto nll = -(bow * recon).sum(1).mean();
  try {
    nll.backward();
    std::cout << "encoder grad norm " << enc->fc->weight.grad().norm().item<double>() << "\n";
  } catch (const c10::Error& e) {
    std::cout << "HARM: backward failed: " << e.what_without_backtrace() << "\n";
  }
  return 0;
}
