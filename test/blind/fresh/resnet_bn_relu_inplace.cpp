// CASE: a conv stem built as a Sequential of Conv2d, BatchNorm2d and an
//       in-place ReLU / ReLU6 after each batch norm, trained normally
// SOURCE: torchvision's ResNet and MobileNetV2 (github.com/pytorch/vision,
//         torchvision/models/resnet.py and mobilenetv2.py:
//         nn.ReLU(inplace=True) / nn.ReLU6(inplace=True) after BN)
// KIND: near-miss
// WHY-OK: batch norm's backward needs its input and saved statistics, not its
//         output, so the in-place activations overwrite nothing autograd saved
//         and nobody else reads the BN outputs
#include <torch/torch.h>

#include <iostream>

static torch::nn::Sequential make_stem(bool inplace) {
  return torch::nn::Sequential(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1).bias(false)),
      torch::nn::BatchNorm2d(8),
      torch::nn::ReLU(torch::nn::ReLUOptions().inplace(inplace)),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 8, 3).padding(1).bias(false)),
      torch::nn::BatchNorm2d(8),
      torch::nn::ReLU6(torch::nn::ReLU6Options().inplace(inplace)),
      torch::nn::AdaptiveAvgPool2d(1), torch::nn::Flatten(), torch::nn::Linear(8, 3));
}

int main() {
  auto x = torch::randn({4, 3, 8, 8});
  auto y = torch::randint(0, 3, {4});

  torch::manual_seed(0);
  auto ref = make_stem(false);
  torch::nn::functional::cross_entropy(ref->forward(x), y).backward();

  torch::manual_seed(0);
  auto net = make_stem(true);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  opt.zero_grad();
  auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
  loss.backward();

  double worst = 0.0;
  auto p = net->parameters();
  auto r = ref->parameters();
  for (size_t i = 0; i < p.size(); ++i)
    worst = std::max(worst, (p[i].grad() - r[i].grad()).abs().max().item<double>());
  opt.step();
  std::cout << (worst < 1e-5 ? "ok: " : "MISMATCH: ")
            << "in-place activations give the same gradients (max diff " << worst << ")\n";
  return 0;
}
