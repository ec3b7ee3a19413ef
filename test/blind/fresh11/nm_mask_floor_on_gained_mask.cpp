// CASE: a speech-enhancement mask estimator outputs a sigmoid T-F mask,
//       multiplies it by a learned per-bin gain, and the post-processing
//       helper clamps a movedim view of that gained mask in place to apply
//       the spectral floor before the loss
// SOURCE: the kind of code in mask-based speech enhancement models (mask
//         flooring, frame-major layouts)
// KIND: near-miss
// WHY-OK: the view is of the product, whose value no backward formula saved
//         (mul saves its inputs); the sigmoid output itself is not written
#include <torch/torch.h>
#include <iostream>

namespace enhance {

struct MaskNetImpl : torch::nn::Module {
  explicit MaskNetImpl(int64_t bins) {
    rnn = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(bins, 32).batch_first(true)));
    proj = register_module("proj", torch::nn::Linear(32, bins));
    gain = register_parameter("gain", torch::ones({bins, 1}));
  }
  torch::Tensor forward(const torch::Tensor& spec) {  // [B, F, T]
    auto frames = spec.transpose(1, 2);
    auto h = std::get<0>(rnn->forward(torch::log1p(frames)));
    auto mask = torch::sigmoid(proj->forward(h)).transpose(1, 2);
    return mask * gain;  // fresh tensor
  }
  torch::nn::GRU rnn{nullptr};
  torch::nn::Linear proj{nullptr};
  torch::Tensor gain;
};
TORCH_MODULE(MaskNet);

void apply_spectral_floor(const torch::Tensor& mask, const torch::Tensor& floor) {
  auto per_frame = mask.movedim(1, -1);  // [B, T, F]
  per_frame.clamp_min_(floor);
}

}  // namespace enhance

int main() {
  torch::manual_seed(0);
  const int64_t B = 2, F = 12, T = 10;
  enhance::MaskNet net(F);
  torch::optim::Adam opt(net->parameters(), 1e-3);
  auto clean = torch::rand({B, F, T});
  auto noisy = clean + 0.3 * torch::rand({B, F, T});
  auto floor = torch::linspace(0.05, 0.2, F);
  try {
    auto mask = net->forward(noisy);
    enhance::apply_spectral_floor(mask, floor);
    auto loss = torch::l1_loss(mask * noisy, clean);
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::cout << "loss " << loss.item<double>() << ", min mask " << mask.min().item<double>() << "\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
