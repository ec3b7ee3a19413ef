// CASE: a face-recognition trainer's ArcFace head exposes its class centres
//       through an accessor that returns weight_.detach() ("no autograd
//       bookkeeping"); after computing the margin loss, the trainer
//       re-projects the centres onto the unit sphere through that accessor,
//       before backward; detach() shares the version counter with the weight
//       the forward saved, so backward refuses to run
// SOURCE: ArcFace/CosFace heads ported to libtorch (class-centre
//         renormalisation, cf. https://github.com/jonasgrebe/pt-femb-face-embeddings/issues/3);
//         https://github.com/huggingface/transformers/pull/24529 (in-place
//         normalisation breaking backward)
// KIND: bug
// HARM: backward throws "modified by an inplace operation"
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <sstream>

namespace F = torch::nn::functional;

struct ArcMarginImpl : torch::nn::Module {
  ArcMarginImpl(int64_t features, int64_t classes, double scale, double margin)
      : scale_(scale), margin_(margin) {
    weight_ = register_parameter("weight", torch::randn({classes, features}));
  }

  torch::Tensor centres() const { return weight_.detach(); }

  torch::Tensor forward(const torch::Tensor& embeddings, const torch::Tensor& labels) {
    auto cosine = F::normalize(embeddings, F::NormalizeFuncOptions().dim(1))
                      .mm(F::normalize(weight_, F::NormalizeFuncOptions().dim(1)).t());
    auto theta = torch::acos(cosine.clamp(-1 + 1e-7, 1 - 1e-7));
    auto one_hot = F::one_hot(labels, weight_.size(0)).to(torch::kFloat);
    return scale_ * torch::cos(theta + margin_ * one_hot);
  }

  torch::Tensor weight_;
  double scale_, margin_;
};
TORCH_MODULE(ArcMargin);

int main() {
  torch::manual_seed(0);
  torch::nn::Linear backbone(32, 16);
  ArcMargin head(16, 10, 30.0, 0.5);
  std::vector<torch::Tensor> params = backbone->parameters();
  for (const auto& p : head->parameters()) params.push_back(p);
  torch::optim::SGD optimizer(params, torch::optim::SGDOptions(0.1).momentum(0.9));

  auto images = torch::randn({8, 32});
  auto labels = torch::randint(0, 10, {8});
  auto logits = head->forward(backbone->forward(images), labels);
  auto loss = torch::cross_entropy_loss(logits, labels);

  // keep the class centres on the unit sphere
  auto centres = head->centres();  // BUG(libtorch-detached-write)
  centres.div_(centres.norm(2, 1, true));  // BUG(libtorch-detached-write)

  optimizer.zero_grad();
  try {
    loss.backward();
    optimizer.step();
    std::cout << "step done, loss " << loss.item<double>() << "\n";
  } catch (const c10::Error& e) {
    std::istringstream msg(e.what());
    std::string first_line;
    std::getline(msg, first_line);
    std::cout << "HARM: backward failed: " << first_line << "\n";
  }
  return 0;
}
