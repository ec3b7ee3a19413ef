// CASE: the output projection is tied to the embedding by assigning the
//       member, `head->weight = embed->weight`, and the optimizer is built by
//       concatenating embed->parameters() and head->parameters()
// SOURCE: https://github.com/mlverse/torch/issues/968 (assigning a tensor to a
//         module field without register_parameter does not register it)
// KIND: near-miss
// WHY-OK: the assignment does not re-register the parameter, so the shared
//         matrix is listed once (through the embedding) and is stepped once
//         with the gradient summed over both uses; the head's stale
//         registered weight gets no gradient and SGD skips it
#include <torch/torch.h>

#include <cstdio>
#include <vector>

int main() {
  torch::manual_seed(36);
  const int64_t vocab = 10, dim = 6;
  torch::nn::Embedding embed(vocab, dim);
  torch::nn::Linear head(torch::nn::LinearOptions(dim, vocab).bias(false));
  head->weight = embed->weight;

  std::vector<torch::Tensor> params = embed->parameters();
  auto hp = head->parameters();
  params.insert(params.end(), hp.begin(), hp.end());
  const double lr = 0.1;
  torch::optim::SGD opt(params, lr);

  auto tokens = torch::randint(vocab, {4, 5});
  auto targets = torch::randint(vocab, {4, 5});
  opt.zero_grad();
  auto logits = head(torch::tanh(embed(tokens)));
  torch::cross_entropy_loss(logits.reshape({-1, vocab}), targets.reshape({-1})).backward();
  auto expected = (embed->weight - lr * embed->weight.grad()).detach();
  opt.step();

  const double err = (embed->weight.detach() - expected).abs().max().item<double>();
  std::printf("tied weight error after one step: %.6g\n", err);
  if (err > 1e-7) std::printf("HARM: tied weight stepped more than once\n");
  return 0;
}
