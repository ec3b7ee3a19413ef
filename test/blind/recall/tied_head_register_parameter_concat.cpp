// CASE: a language model ties its output projection to the embedding by
//       registering the embedding's weight as the head's parameter; the
//       trainer builds the optimizer by inserting each part's parameters()
//       into one list, so the tied matrix is listed (and stepped) twice
// SOURCE: https://github.com/mlverse/torch/issues/305 ("Duplicated weights when
//         they are shared": shared weights come back twice from parameters)
// KIND: bug
// HARM: the tied embedding moves by twice the SGD step
#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct TiedHeadImpl : torch::nn::Module {
  explicit TiedHeadImpl(torch::Tensor embedding_weight) {
    weight = register_parameter("weight", embedding_weight);  // BUG(libtorch-shared-parameter-update)
    bias = register_parameter("bias", torch::zeros({embedding_weight.size(0)}));
  }
  torch::Tensor forward(const torch::Tensor& h) { return torch::nn::functional::linear(h, weight, bias); }
  torch::Tensor weight, bias;
};
TORCH_MODULE(TiedHead);

int main() {
  torch::manual_seed(11);
  const int64_t vocab = 12, dim = 6;
  torch::nn::Embedding embed(vocab, dim);
  torch::nn::LSTM rnn(torch::nn::LSTMOptions(dim, dim).batch_first(true));
  TiedHead head(embed->weight);

  std::vector<torch::Tensor> params;
  for (torch::nn::Module* part : std::vector<torch::nn::Module*>{embed.get(), rnn.get(), head.get()}) {
    auto p = part->parameters();
    params.insert(params.end(), p.begin(), p.end());  // BUG(libtorch-shared-parameter-update)
  }
  const double lr = 0.1;
  torch::optim::SGD opt(params, torch::optim::SGDOptions(lr));  // BUG(libtorch-shared-parameter-update)

  auto tokens = torch::randint(vocab, {4, 5});
  auto targets = torch::randint(vocab, {4, 5});
  opt.zero_grad();
  auto h = std::get<0>(rnn(embed(tokens)));
  auto logits = head(h);
  auto loss = torch::cross_entropy_loss(logits.reshape({-1, vocab}), targets.reshape({-1}));
  loss.backward();

  auto before = embed->weight.detach().clone();
  auto expected = before - lr * embed->weight.grad();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const double err = (embed->weight.detach() - expected).abs().max().item<double>();
  const double moved = (embed->weight.detach() - before).abs().max().item<double>();
  const double one_step = (lr * embed->weight.grad()).abs().max().item<double>();
  std::printf("max move %.6f, one SGD step %.6f, error %.6f\n", moved, one_step, err);
  if (err > 1e-7) {
    std::printf("HARM: tied embedding stepped %.1fx per optimizer step\n", moved / one_step);
  }
  return 0;
}
