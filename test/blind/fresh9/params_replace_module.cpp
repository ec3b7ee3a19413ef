// CASE: a speech seq2seq model ties its decoder's input projection to the
//       encoder's by replace_module("dec_in", enc_in) after construction; both
//       names now reach one Linear, parameters() lists its weight and bias
//       twice, and RMSprop steps them twice
// SOURCE: the kind of code in libtorch ASR/TTS fine-tuning scripts that reuse
//         a pretrained projection with Module::replace_module (the documented
//         "replace a module after initialization, e.g. for finetuning" use)
// KIND: bug
// HARM: the tied projection moved about 17*lr per element on the first
//       RMSprop step instead of 10*lr (two updates with one square average)
#include <torch/torch.h>

#include <iostream>

struct SpeechSeq2SeqImpl : torch::nn::Module {
  SpeechSeq2SeqImpl(int64_t feat, int64_t hid) {
    enc_in = register_module("enc_in", torch::nn::Linear(feat, hid));
    dec_in = register_module("dec_in", torch::nn::Linear(feat, hid));
    enc = register_module("enc", torch::nn::GRU(hid, hid));
    out = register_module("out", torch::nn::Linear(hid, feat));
  }
  void tie_input_projections() {
    dec_in = replace_module("dec_in", enc_in);  // BUG(libtorch-shared-parameter-update)
  }
  torch::Tensor forward(const torch::Tensor& src, const torch::Tensor& prev_frames) {
    auto h = std::get<1>(enc->forward(torch::tanh(enc_in(src))));
    auto dec = torch::tanh(dec_in(prev_frames)) + h[-1].unsqueeze(0);
    return out(dec);
  }
  torch::nn::Linear enc_in{nullptr}, dec_in{nullptr}, out{nullptr};
  torch::nn::GRU enc{nullptr};
};
TORCH_MODULE(SpeechSeq2Seq);

int main() {
  torch::manual_seed(0);
  SpeechSeq2Seq model(20, 32);
  model->tie_input_projections();
  std::cout << "parameters listed: " << model->parameters().size() << "\n";

  const double lr = 1e-4;
  torch::optim::RMSprop opt(model->parameters(), torch::optim::RMSpropOptions(lr));  // BUG(libtorch-shared-parameter-update)
  const auto w0 = model->enc_in->weight.detach().clone();

  auto src = torch::randn({12, 4, 20}), prev = torch::randn({6, 4, 20});
  auto target = torch::randn({6, 4, 20});
  auto loss = torch::mse_loss(model(src, prev), target);
  opt.zero_grad();
  loss.backward();
  opt.step();  // BUG(libtorch-shared-parameter-update)

  const double moved = (model->enc_in->weight - w0).abs().max().item<double>() / lr;
  std::cout << "tied projection moved " << moved << " * lr (one RMSprop step: 10 * lr)\n";
  if (moved > 12.0)
    std::cout << "HARM: the tied projection took two RMSprop updates (" << moved
              << " * lr)\n";
  return 0;
}
