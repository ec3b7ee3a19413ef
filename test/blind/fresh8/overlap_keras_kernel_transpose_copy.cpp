// CASE: a Keras-to-libtorch checkpoint converter copies each Dense kernel
//       into the matching Linear weight as stored (in, out) and then
//       transposes it in place with weight.copy_(weight.t()); the residual
//       MLP's hidden layers are square, so the shapes line up
// SOURCE: the kind of code in hand-written TF/Keras -> libtorch weight
//       converters (kernels are (in, out) in Keras, (out, in) in torch)
// KIND: bug
// HARM: the copy from the transposed view of the same storage is rejected,
//       so conversion aborts halfway with some layers still untransposed
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
    if (value.dim() == 2) dst.copy_(dst.t());  // BUG(libtorch-overlapping-inplace)
  }
}

}  // namespace convert

int main() {
  torch::manual_seed(13);
  constexpr int64_t kWidth = 6;
  torch::nn::Sequential mlp;
  for (int i = 0; i < 3; ++i) mlp->push_back(torch::nn::Linear(kWidth, kWidth));

  const auto h5 = convert::fake_h5(kWidth);
  try {
    convert::load(mlp, h5);
    const auto expected = h5.at("dense/kernel").t();
    const double off =
        (mlp->ptr(0)->as<torch::nn::Linear>()->weight - expected).abs().max().item<double>();
    std::printf("first layer off by %.4f\n", off);
    if (off > 1e-6) std::printf("HARM: converted kernel is not the transpose (off by %.4f)\n", off);
  } catch (const c10::Error& e) {
    const std::string what = e.what();
    std::printf("HARM: checkpoint conversion aborted: %s\n",
                what.substr(0, what.find('\n')).c_str());
  }
  return 0;
}
