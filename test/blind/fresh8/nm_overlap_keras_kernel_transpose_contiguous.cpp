// CASE: a Keras-to-libtorch checkpoint converter copies each Dense kernel
//       into the matching Linear weight as stored (in, out) and then
//       transposes it in place; the residual MLP's hidden layers are square
// SOURCE: the kind of code in hand-written TF/Keras -> libtorch weight
//       converters (kernels are (in, out) in Keras, (out, in) in torch)
// KIND: near-miss
// WHY-OK: the transposed source is materialised with .contiguous() (a
//       non-contiguous t() view is copied into new storage) before copy_
//       writes the weight, so source and destination do not overlap
#include <torch/torch.h>

#include <cstdio>
#include <map>
#include <string>

namespace convert {

using KerasWeights = std::map<std::string, torch::Tensor>;

KerasWeights fake_h5(int64_t width) {
  KerasWeights w;
  for (const std::string layer : {"dense", "dense_1", "dense_2"}) {
    w[layer + "/kernel"] = torch::randn({width, width});
    w[layer + "/bias"] = torch::randn({width});
  }
  return w;
}

std::string torch_name(const std::string& keras) {
  const auto slash = keras.find('/');
  const auto layer = keras.substr(0, slash);
  const auto index = layer == "dense" ? std::string("0") : layer.substr(layer.find('_') + 1);
  return index + (keras.substr(slash + 1) == "kernel" ? ".weight" : ".bias");
}

void load(torch::nn::Sequential& net, const KerasWeights& src) {
  torch::NoGradGuard no_grad;
  auto params = net->named_parameters();
  for (const auto& [name, value] : src) {
    auto& dst = params[torch_name(name)];
    dst.copy_(value);
    if (value.dim() == 2) dst.copy_(dst.t().contiguous());
  }
}

}  // namespace convert

int main() {
  torch::manual_seed(13);
  constexpr int64_t kWidth = 6;
  torch::nn::Sequential mlp;
  for (int i = 0; i < 3; ++i) mlp->push_back(torch::nn::Linear(kWidth, kWidth));

  const auto h5 = convert::fake_h5(kWidth);
  convert::load(mlp, h5);
  double worst = 0.0;
  for (int i = 0; i < 3; ++i) {
    const auto key = i == 0 ? std::string("dense/kernel") : "dense_" + std::to_string(i) + "/kernel";
    const auto off = (mlp->ptr(i)->as<torch::nn::Linear>()->weight - h5.at(key).t())
                         .abs().max().item<double>();
    worst = std::max(worst, off);
  }
  std::printf("converted %zu tensors; worst kernel mismatch %.6f\n", h5.size(), worst);
  return 0;
}
