// CASE: a learnable audio front end turns predicted log-magnitudes into
//       power with exp() and runs a user-installed post-processing hook,
//       stored as a std::function member, that limits the dynamic range by
//       clamping power.detach() in place before the loss is computed
// SOURCE: the kind of code from neural vocoder / speech-enhancement front
//         ends with pluggable post-processing hooks; the PyTorch 0.4
//         migration guide's detach() example (in-place changes on a
//         detached output are reported at backward), quoted at
//         https://e-com-net.com/article/1279942790742032384.htm
// KIND: bug
// HARM: loss.backward() throws: the exp() output it saved was modified
#include <torch/torch.h>

#include <functional>
#include <iostream>

class PowerFrontend : public torch::nn::Module {
 public:
  using Hook = std::function<void(const torch::Tensor&)>;

  PowerFrontend(int64_t in_bins, int64_t mel_bins)
      : proj_(register_module("proj", torch::nn::Linear(in_bins, mel_bins))) {}

  void on_power(Hook hook) { hook_ = std::move(hook); }

  torch::Tensor forward(const torch::Tensor& frames) {
    auto log_mag = proj_(frames);
    auto power = torch::exp(2.0 * log_mag);                     // BUG(libtorch-detached-write)
    if (hook_) hook_(power);                                    // BUG(libtorch-detached-write)
    return power;
  }

 private:
  torch::nn::Linear proj_;
  Hook hook_;
};

int main() {
  torch::manual_seed(37);
  const int64_t frames = 20, bins = 64, mels = 16;
  auto frontend = std::make_shared<PowerFrontend>(bins, mels);
  const float ceiling = 4.0f;  // +6 dB over full scale
  frontend->on_power([ceiling](const torch::Tensor& power) {
    power.detach().clamp_max_(ceiling);                         // BUG(libtorch-detached-write)
  });

  torch::optim::Adam opt(frontend->parameters(), torch::optim::AdamOptions(1e-3));
  auto x = torch::randn({frames, bins});
  auto target_db = torch::randn({frames, mels}) * 3;

  auto power = frontend->forward(x);
  auto loss = torch::mse_loss(10 * torch::log10(power + 1e-6), target_db);
  std::cout << "loss " << loss.item<float>() << ", clipped bins "
            << (power >= ceiling).sum().item<int64_t>() << "\n";
  try {
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::cout << "step done\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cout << "HARM: backward threw: " << msg.substr(0, msg.find('\n')) << "\n";
  }
  return 0;
}
