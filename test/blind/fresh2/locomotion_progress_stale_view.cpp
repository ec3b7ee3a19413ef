// CASE: a point-mass locomotion environment keeps the position row of its
//       state tensor (state_[0], a view) as "the position before the step",
//       integrates the state in place with a helper, and pays the distance
//       travelled between the kept row and the new position as the reward
// SOURCE: https://github.com/pyro-ppl/pyro/issues/3154
// KIND: bug
// HARM: the kept row already shows the new position, so the progress reward
//       is always zero
#include <torch/torch.h>

#include <iostream>

// Semi-implicit Euler on a [2, dims] state: row 0 position, row 1 velocity.
static void integrate(torch::Tensor& state, const torch::Tensor& force, double dt) {
  state[1].add_(force, dt);
  state[0].add_(state[1], dt);
}

class PointMassEnv {
 public:
  PointMassEnv() : state_(torch::zeros({2, 2})) {
    state_[1].copy_(torch::tensor({1.0f, 0.5f}));
  }

  double step(const torch::Tensor& force) {
    const auto before = state_[0];  // BUG(libtorch-inplace-on-view)
    integrate(state_, force, dt_);  // BUG(libtorch-inplace-on-view)
    return (state_[0] - before).norm().item<double>();  // BUG(libtorch-inplace-on-view)
  }

  torch::Tensor position() const { return state_[0].clone(); }

 private:
  torch::Tensor state_;
  double dt_ = 0.1;
};

int main() {
  PointMassEnv env;
  double total = 0.0;
  auto start = env.position();
  for (int t = 0; t < 5; ++t) {
    total += env.step(torch::tensor({0.2f, 0.0f}));
  }
  double travelled = (env.position() - start).norm().item<double>();
  std::cout << "progress reward " << total << ", distance travelled " << travelled << "\n";
  if (total < 0.5 * travelled) {
    std::cout << "HARM: the progress reward is " << total << " although the body moved "
              << travelled << "\n";
  }
  return 0;
}
