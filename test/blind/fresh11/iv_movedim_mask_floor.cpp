// CASE: a speech-enhancement mask estimator outputs a sigmoid T-F mask
//       [B, F, T]; the post-processing helper moves the frequency axis last
//       with movedim to apply a per-bin spectral floor and clamps the view in
//       place, and the masked magnitude is then used in the training loss
// SOURCE: the kind of code in mask-based speech enhancement / source
//         separation models (mask flooring, frame-major layouts)
// KIND: bug
// HARM: backward throws: sigmoid's saved output was modified in place
#include <torch/torch.h>
#include <iostream>

namespace enhance {

struct MaskNetImpl : torch::nn::Module {
  explicit MaskNetImpl(int64_t bins) {
    rnn = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(bins, 32).batch_first(true)));
    proj = register_module("proj", torch::nn::Linear(32, bins));
  }
  // spec: [B, F, T] magnitude -> mask [B, F, T]
  torch::Tensor forward(const torch::Tensor& spec) {
    auto frames = spec.transpose(1, 2);                 // [B, T, F]
    auto h = std::get<0>(rnn->forward(torch::log1p(frames)));
    return torch::sigmoid(proj->forward(h)).transpose(1, 2);
  }
  torch::nn::GRU rnn{nullptr};
  torch::nn::Linear proj{nullptr};
};
TORCH_MODULE(MaskNet);

// floor[f] keeps some residual noise in each bin to avoid musical noise
void apply_spectral_floor(const torch::Tensor& mask, const torch::Tensor& floor) {
  auto per_frame = mask.movedim(1, -1);  // [B, T, F]  // BUG(libtorch-inplace-on-view)
  per_frame.clamp_min_(floor);  // BUG(libtorch-inplace-on-view)
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
    enhance::apply_spectral_floor(mask, floor);  // BUG(libtorch-inplace-on-view)
    auto loss = torch::l1_loss(mask * noisy, clean);
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::cout << "loss " << loss.item<double>() << "\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
