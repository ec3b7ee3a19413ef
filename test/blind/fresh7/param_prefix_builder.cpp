// CASE: a fluent ParamSelector builder picks the tensors to fine-tune from
//       named_parameters() by name prefix; the config unfreezes "decoder." and
//       also "decoder.attn.", so every attention tensor is selected twice and
//       stepped twice by momentum SGD
// SOURCE: the kind of code in libtorch fine-tuning tools that turn a list of
//         unfrozen module prefixes from a config file into a parameter list
// KIND: bug
// HARM: the attention weights move by 2.9 times the first SGD-momentum step
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

struct DecoderImpl : torch::nn::Module {
  DecoderImpl() {
    attn = register_module("attn", torch::nn::Linear(8, 8));
    ffn = register_module("ffn", torch::nn::Linear(8, 8));
  }
  torch::Tensor forward(const torch::Tensor& x) { return ffn(torch::softmax(attn(x), -1) * x); }
  torch::nn::Linear attn{nullptr}, ffn{nullptr};
};
TORCH_MODULE(Decoder);

struct Seq2SeqImpl : torch::nn::Module {
  Seq2SeqImpl() {
    encoder = register_module("encoder", torch::nn::Linear(8, 8));
    decoder = register_module("decoder", Decoder());
  }
  torch::Tensor forward(const torch::Tensor& x) { return decoder(torch::tanh(encoder(x))); }
  torch::nn::Linear encoder{nullptr};
  Decoder decoder{nullptr};
};
TORCH_MODULE(Seq2Seq);

class ParamSelector {
 public:
  explicit ParamSelector(torch::nn::Module& m) : named_(m.named_parameters()) {}
  ParamSelector& unfreeze(std::string prefix) {
    prefixes_.push_back(std::move(prefix));
    return *this;
  }
  std::vector<torch::Tensor> build() const {
    std::vector<torch::Tensor> out;
    for (const auto& prefix : prefixes_)
      for (const auto& item : named_)
        if (item.key().rfind(prefix, 0) == 0) out.push_back(item.value());
    return out;
  }

 private:
  torch::OrderedDict<std::string, torch::Tensor> named_;
  std::vector<std::string> prefixes_;
};

int main() {
  torch::manual_seed(9);
  Seq2Seq model;
  const double lr = 0.1;
  auto params = ParamSelector(*model).unfreeze("decoder.").unfreeze("decoder.attn.").build();  // BUG(libtorch-shared-parameter-update)
  torch::optim::SGD opt(params, torch::optim::SGDOptions(lr).momentum(0.9));  // BUG(libtorch-shared-parameter-update)

  auto x = torch::randn({16, 8});
  auto y = torch::randn({16, 8});
  opt.zero_grad();
  torch::mse_loss(model->forward(x), y).backward();

  auto& w = model->decoder->attn->weight;
  auto before = w.detach().clone();
  auto g = w.grad().clone();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  // how many plain SGD steps the weight actually moved (1 is right)
  const double steps = ((before - w.detach()) * g).sum().item<double>() /
                       (lr * (g * g).sum().item<double>());
  std::cout << params.size() << " tensors selected, attention moved " << steps << " steps\n";
  if (std::abs(steps - 1.0) > 1e-3)
    std::cout << "HARM: decoder.attn.weight moved " << steps
              << " SGD steps in one step() (selected by two prefixes)\n";
  return 0;
}
