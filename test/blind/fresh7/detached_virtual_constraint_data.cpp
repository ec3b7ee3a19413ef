// CASE: a factorisation model applies its weight constraints, objects
//       behind a virtual Constraint interface that project through .data(),
//       right after computing the loss and before backward; mm had saved the
//       dictionary, so the activations' gradient uses the projected values
// SOURCE: the kind of code in Keras-style constraint ports (NonNeg,
//         UnitNorm) to libtorch, with the projection hooked in the wrong place
// KIND: bug
// HARM: the gradient of the codes differs from the gradient of the loss that
//       was actually computed (silently, no error)
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <utility>
#include <vector>

struct Constraint {
  virtual ~Constraint() = default;
  virtual void project(const torch::Tensor& w) const = 0;
};

struct NonNegative final : Constraint {
  void project(const torch::Tensor& w) const override {
    w.data().clamp_min_(0.0);  // BUG(libtorch-detached-write)
  }
};

struct UnitNormRows final : Constraint {
  void project(const torch::Tensor& w) const override {
    auto d = w.data();
    d.div_(d.norm(2, 1, true).clamp_min(1e-12));  // BUG(libtorch-detached-write)
  }
};

using ConstrainedParam = std::pair<torch::Tensor, std::shared_ptr<Constraint>>;

void apply_constraints(const std::vector<ConstrainedParam>& list) {
  for (const auto& [param, constraint] : list) constraint->project(param);  // BUG(libtorch-detached-write)
}

int main() {
  torch::manual_seed(12);
  auto codes = torch::randn({10, 4}, torch::requires_grad());
  auto dict = torch::randn({4, 6}, torch::requires_grad());
  auto data = torch::rand({10, 6});

  // reference: the gradient of this loss with the dictionary as used
  auto codes_ref = codes.detach().clone().requires_grad_();
  torch::mse_loss(codes_ref.mm(dict.detach().clone()), data).backward();

  std::vector<ConstrainedParam> constrained{{dict, std::make_shared<NonNegative>()},
                                            {dict, std::make_shared<UnitNormRows>()}};

  auto loss = torch::mse_loss(codes.mm(dict), data);
  apply_constraints(constrained);  // BUG(libtorch-detached-write)
  loss.backward();

  const double err = (codes.grad() - codes_ref.grad()).abs().max().item<double>();
  std::cout << "code gradient error " << err << "\n";
  if (err > 1e-6)
    std::cout << "HARM: the codes' gradient is off by " << err
              << " (computed with the projected dictionary)\n";
  return 0;
}
