// CASE: a locked (variational) dropout layer resamples its mask in place
//       through a CRTP mixin that opens a NoGradGuard; the trainer runs its
//       "after forward" hooks, including the resample, before backward, and
//       x * mask had saved the mask
// SOURCE: the kind of code in AWD-LSTM style language models ported to
//         libtorch, with per-batch hooks stored as std::function
// KIND: bug
// HARM: loss.backward() throws because the saved mask was modified in place
#include <torch/torch.h>

#include <functional>
#include <iostream>
#include <vector>

template <class Derived>
struct Resampling {
  void resample() {
    torch::NoGradGuard no_grad;
    static_cast<Derived&>(*this).draw();
  }
};

struct LockedDropout : Resampling<LockedDropout> {
  LockedDropout(int64_t hidden, double p) : keep(1.0 - p), mask(torch::empty({1, hidden})) {
    resample();
  }
  void draw() {
    mask.bernoulli_(keep).div_(keep);  // BUG(libtorch-detached-write)
  }
  torch::Tensor operator()(const torch::Tensor& x) const { return x * mask; }

  double keep;
  torch::Tensor mask;
};

struct Trainer {
  std::vector<std::function<void()>> after_forward;
  void run_hooks() {
    for (auto& hook : after_forward) hook();
  }
};

int main() {
  torch::manual_seed(8);
  torch::nn::Linear rnn_in(10, 12), decoder(12, 5);
  LockedDropout drop(12, 0.3);
  Trainer trainer;
  trainer.after_forward.push_back([&drop] { drop.resample(); });  // BUG(libtorch-detached-write)

  auto x = torch::randn({6, 10});
  auto y = torch::randint(0, 5, {6});
  auto h = drop(torch::tanh(rnn_in(x)));
  auto loss = torch::nn::functional::cross_entropy(decoder(h), y);
  trainer.run_hooks();  // BUG(libtorch-detached-write)
  try {
    loss.backward();
    std::cout << "backward ok\n";
  } catch (const c10::Error& e) {
    std::string what = e.what();
    std::cout << "HARM: " << what.substr(0, what.find('\n')) << "\n";
  }
  return 0;
}
