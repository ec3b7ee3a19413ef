// CASE: a stick-breaking neural topic model builds the exclusive cumprod of
//       (1 - v) by rolling the cumprod output right (torch::roll, a new
//       tensor) and setting the rolled tensor's first column to 1 in place
//       (select().fill_), then backpropagates the ELBO
// SOURCE: the kind of code in libtorch ports of stick-breaking VAEs / neural
//         topic models (Nalisnick & Smyth 2017)
// KIND: near-miss
// WHY-OK: the in-place fill writes a fresh tensor produced by roll(), which no
//         backward node has saved; the cumprod output itself is never written
#include <torch/torch.h>

#include <iostream>

namespace topic {

torch::Tensor stick_breaking(const torch::Tensor& v) {
  const int64_t k1 = v.size(1);
  auto remaining = torch::cumprod(1 - v, /*dim=*/1);
  auto last = remaining.narrow(1, k1 - 1, 1);
  auto exclusive = torch::roll(remaining, /*shifts=*/1, /*dims=*/1);
  exclusive.select(1, 0).fill_(1.0);
  return torch::cat({v * exclusive, last}, 1);
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
