// RUN: %check_clang_tidy -check-suffix=DEFAULT %s libtorch-overlapping-inplace %t -- -- %mock_torch
// RUN: %check_clang_tidy -check-suffix=MAY %s libtorch-overlapping-inplace %t -- \
// RUN:   -config="{CheckOptions: [{key: libtorch-overlapping-inplace.WarnOnPossibleOverlap, value: true}]}" -- %mock_torch

#include <torch/torch.h>

// Ranges that cannot be compared are reported only with WarnOnPossibleOverlap.
void SymbolicStarts(torch::Tensor x, int64_t i, int64_t j) {
  x.narrow(0, i, 2).copy_(x.narrow(0, j, 2));
  // CHECK-MESSAGES-MAY: :[[@LINE-1]]:21: warning: source 'x.narrow(0, j, 2)' of 'copy_' may overlap its destination 'x.narrow(0, i, 2)'
  // CHECK-FIXES-MAY: x.narrow(0, i, 2).copy_(x.narrow(0, j, 2).clone());
}

void ReassignedView(torch::Tensor x, bool flip) {
  auto part = x.narrow(0, 0, 2);
  if (flip)
    part = x.narrow(0, 2, 2);
  x.narrow(0, 4, 2).add_(part);
  // CHECK-MESSAGES-MAY: :[[@LINE-1]]:21: warning: operand 'part' of 'add_' may overlap its destination 'x.narrow(0, 4, 2)'
}

// A definite overlap is reported either way.
void Definite(torch::Tensor a) {
  a.sub_(a.slice(1, 0, 1));
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:5: warning: operand 'a.slice(1, 0, 1)' of 'sub_' is a view of its destination 'a'
  // CHECK-MESSAGES-MAY: :[[@LINE-2]]:5: warning: operand 'a.slice(1, 0, 1)' of 'sub_' is a view of its destination 'a'
  // CHECK-FIXES-DEFAULT: a.sub_(a.slice(1, 0, 1).clone());
}

// Disjoint ranges stay quiet with the option too.
void Disjoint(torch::Tensor x, int64_t n) {
  x.narrow(0, 0, n).add_(x.narrow(0, n, n));
}
