// RUN: %check_clang_tidy %s libtorch-overlapping-inplace %t -- -- %mock_torch
// An out= operator whose int argument is no dimension was measured at more
// than one value (Note [Counts other than one]): matrix_power_out writing
// into its input is right for n = 1 only.

#include <torch/torch.h>

// A graph operator raised to the k-th power in place.
class Propagator {
public:
  explicit Propagator(torch::Tensor s, int64_t hops) : s_(s), hops_(hops) {}
  torch::Tensor propagate(const torch::Tensor &x) {
    torch::matrix_power_out(s_, s_, hops_);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: input 's_' of 'matrix_power_out' is the same tensor as its out= argument 's_'; aten::matrix_power does not reject this and computes a wrong result: it reads elements it has already written [libtorch-overlapping-inplace]
    // CHECK-FIXES: torch::matrix_power_out(s_, s_.clone(), hops_);
    return s_.matmul(x);
  }

private:
  torch::Tensor s_;
  int64_t hops_;
};

void PositiveSquare(torch::Tensor a) {
  at::matrix_power_out(a, a, 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'a' of 'matrix_power_out' is the same tensor as its out= argument 'a'; aten::matrix_power does not reject this and computes a wrong result: it reads elements it has already written [libtorch-overlapping-inplace]
  // CHECK-FIXES: at::matrix_power_out(a, a.clone(), 2);
}

void PositiveLinalg(torch::Tensor m, int64_t k) {
  at::linalg_matrix_power_out(m, m, k);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: input 'm' of 'linalg_matrix_power_out' is the same tensor as its out= argument 'm'; aten::linalg_matrix_power does not reject this and computes a wrong result: it reads elements it has already written [libtorch-overlapping-inplace]
  // CHECK-FIXES: at::linalg_matrix_power_out(m, m.clone(), k);
}

// A buffer of its own.
void NegativeSeparateOut(const torch::Tensor &s, torch::Tensor out) {
  at::matrix_power_out(out, s, 3);
}

// The out= argument is a clone of the input.
void NegativeClone(const torch::Tensor &s) {
  torch::Tensor power = s.clone();
  at::matrix_power_out(power, s, 4);
}

