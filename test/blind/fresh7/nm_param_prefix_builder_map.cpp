// CASE: a fluent ParamSelector builder picks the tensors to fine-tune from
//       named_parameters() by name prefix; the config unfreezes "decoder."
//       and also "decoder.attn.", two overlapping prefixes
// SOURCE: the kind of code in libtorch fine-tuning tools that turn a list of
//         unfrozen module prefixes from a config file into a parameter list
// KIND: near-miss
// WHY-OK: the selector collects into a std::map keyed by the parameter's
//         full name, so a tensor matched by two prefixes is kept once, and no
//         module is registered twice, so names and tensors correspond
#include <torch/torch.h>

#include <iostream>
#include <map>
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
    std::map<std::string, torch::Tensor> chosen;
    for (const auto& prefix : prefixes_)
      for (const auto& item : named_)
        if (item.key().rfind(prefix, 0) == 0) chosen.emplace(item.key(), item.value());
    std::vector<torch::Tensor> out;
    for (auto& [name, tensor] : chosen) out.push_back(tensor);
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
  auto params = ParamSelector(*model).unfreeze("decoder.").unfreeze("decoder.attn.").build();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(lr).momentum(0.9));

  auto x = torch::randn({16, 8});
  auto y = torch::randn({16, 8});
  opt.zero_grad();
  torch::mse_loss(model->forward(x), y).backward();

  auto& w = model->decoder->attn->weight;
  auto expected = w.detach() - lr * w.grad();
  opt.step();

  const double err = (w.detach() - expected).abs().max().item<double>();
  std::cout << params.size() << " tensors selected, attention update error " << err << "\n";
  if (err > 1e-6) std::cout << "HARM: decoder.attn.weight is off its SGD step by " << err << "\n";
  return 0;
}
