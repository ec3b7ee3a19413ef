// RUN: %check_clang_tidy %s libtorch-shared-parameter-update %t -- -- %mock_torch
// Optimizers written in the translation unit (Note [Optimizers of the
// translation unit]): a class that keeps the list it is constructed from in
// a member and writes that member's entries in place in a method steps a
// tensor the list holds twice twice, whatever the class is called.

#include <torch/torch.h>

#include <utility>
#include <vector>

struct TiedAEImpl : torch::nn::Module {
  TiedAEImpl() {
    enc = register_module("enc", torch::nn::Linear(20, 8));
    dec_weight = register_parameter("dec_weight", enc->weight);
  }
  torch::nn::Linear enc{nullptr};
  torch::Tensor dec_weight;
};
TORCH_MODULE(TiedAE);

class MomentumSGD {
public:
  MomentumSGD(std::vector<torch::Tensor> params, double lr)
      : params_(std::move(params)), lr_(lr) {
    for (auto &p : params_)
      velocity_.push_back(torch::zeros_like(p));
  }
  void step() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      velocity_[i].mul_(0.9).add_(params_[i].grad());
      params_[i].sub_(velocity_[i] * lr_);
    }
  }

private:
  std::vector<torch::Tensor> params_, velocity_;
  double lr_;
};

// Steps each entry through a range-for over the member.
class PlainDescent {
public:
  explicit PlainDescent(const std::vector<torch::Tensor> &params)
      : params_(params) {}
  void update() {
    torch::NoGradGuard no_grad;
    for (auto &p : params_)
      p.add_(p.grad(), -0.1);
  }

private:
  std::vector<torch::Tensor> params_;
};

void PositiveIndexedStep() {
  TiedAE ae;
  MomentumSGD opt(ae->parameters(), 0.1);
  // CHECK-NOTES: :[[@LINE-1]]:15: warning: 'MomentumSGD' is built from a list that holds parameter 'enc.weight' twice (also as 'dec_weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once
  // CHECK-NOTES: :14:34: note: 'enc.weight' and 'dec_weight' are the same tensor, registered here
  // CHECK-NOTES: :15:18: note: and here
  opt.step();
}

void PositiveRangeForStep() {
  TiedAE ae;
  PlainDescent opt(ae->parameters());
  // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'PlainDescent' is built from a list that holds parameter 'enc.weight' twice (also as 'dec_weight'); each step() updates it twice; de-duplicate the list (torchalias::unique_parameters) or register the tensor once
  // CHECK-NOTES: :14:34: note: 'enc.weight' and 'dec_weight' are the same tensor, registered here
  // CHECK-NOTES: :15:18: note: and here
  opt.update();
}

// An exponential moving average keeps the list too, but writes only its own
// shadow copies: a tied weight gets two shadows, each a tensor of its own.
class Ema {
public:
  explicit Ema(std::vector<torch::Tensor> params) : params_(std::move(params)) {
    for (auto &p : params_)
      shadow_.push_back(p.detach().clone());
  }
  void update() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i)
      shadow_[i].mul_(0.99).add_(params_[i], 0.01);
  }

private:
  std::vector<torch::Tensor> params_, shadow_;
};

// Reads the list only: a gradient-norm logger.
class GradNorm {
public:
  explicit GradNorm(std::vector<torch::Tensor> params) : params_(std::move(params)) {}
  double norm() const {
    double total = 0;
    for (const auto &p : params_)
      total += p.grad().norm().item<double>();
    return total;
  }

private:
  std::vector<torch::Tensor> params_;
};

void NegativeReadersAndShadows() {
  TiedAE ae;
  Ema ema(ae->parameters());
  GradNorm norm(ae->parameters());
  ema.update();
  (void)norm.norm();
}

// The same optimizer over a model with no tie.
void NegativeUntied() {
  torch::nn::Linear model(4, 4);
  MomentumSGD opt(model->parameters(), 0.1);
  opt.step();
}
