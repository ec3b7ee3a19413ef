// RUN: %check_clang_tidy -check-suffix=DEFAULT %s libtorch-inplace-on-view %t -- -- %mock_torch
// RUN: %check_clang_tidy -check-suffix=LOCAL %s libtorch-inplace-on-view %t -- \
// RUN:   -config="{CheckOptions: [{key: libtorch-inplace-on-view.WarnOnLocalBuffers, value: true}]}" -- %mock_torch
// RUN: %check_clang_tidy -check-suffix=NAMES %s libtorch-inplace-on-view %t -- \
// RUN:   -config="{CheckOptions: [{key: libtorch-inplace-on-view.OutputParameterNames, value: 'sink'}]}" -- %mock_torch
// RUN: %check_clang_tidy -check-suffix=TABLE %s libtorch-inplace-on-view %t -- \
// RUN:   -config="{CheckOptions: [{key: libtorch-inplace-on-view.OperatorTable, value: '%S/../../Inputs/tables/no-views.json'}]}" -- %mock_torch

#include <torch/torch.h>

// Filling a local buffer through views is quiet unless WarnOnLocalBuffers is
// set, and then only when the buffer is read after the write.
torch::Tensor LocalBuffer(const torch::Tensor &row, int n) {
  auto out = torch::empty({n, 3});
  for (int i = 0; i < n; ++i)
    out.narrow(0, i, 1).copy_(row);
  // CHECK-MESSAGES-LOCAL: :[[@LINE-1]]:25: warning: 'copy_' writes in place to a view of local 'out'; 'out' is read afterwards and sees the write
  return out;
}

void LocalBufferNotReadAgain(const torch::Tensor &row) {
  auto scratch = torch::empty({2, 3});
  scratch.select(0, 0).copy_(row);
}

// The output-parameter names are configurable; the default list has 'out'
// but not 'sink'.
// The row is read back, so nothing but the name says that writing 'out' is
// the point.
float NamedOut(const torch::Tensor &out, const torch::Tensor &x) {
  auto row = out.select(0, 0);
  row.copy_(x);
  // CHECK-MESSAGES-NAMES: :[[@LINE-1]]:7: warning: 'copy_' writes in place to 'row', a view of parameter 'out'
  return row.sum().item<float>();
}

float NamedSink(const torch::Tensor &sink, const torch::Tensor &x) {
  auto row = sink.select(0, 0);
  row.copy_(x);
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:7: warning: 'copy_' writes in place to 'row', a view of parameter 'sink'
  // CHECK-MESSAGES-LOCAL: :[[@LINE-2]]:7: warning: 'copy_' writes in place to 'row', a view of parameter 'sink'
  return row.sum().item<float>();
}

// With a table in which 'narrow' is not a view, the check follows the table.
void TableDecides(const torch::Tensor &x) {
  auto head = x.narrow(0, 0, 1);
  head.zero_();
  // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:8: warning: 'zero_' writes in place to 'head', a view of parameter 'x'
  // CHECK-MESSAGES-LOCAL: :[[@LINE-2]]:8: warning: 'zero_' writes in place to 'head', a view of parameter 'x'
  // CHECK-MESSAGES-NAMES: :[[@LINE-3]]:8: warning: 'zero_' writes in place to 'head', a view of parameter 'x'
  // CHECK-FIXES-DEFAULT: auto head = x.narrow(0, 0, 1).clone();
  // CHECK-FIXES-LOCAL: auto head = x.narrow(0, 0, 1).clone();
  // CHECK-FIXES-NAMES: auto head = x.narrow(0, 0, 1).clone();
}

torch::Tensor Suppressed(const torch::Tensor &x) {
  auto head = x.narrow(0, 0, 1);
  head.zero_(); // NOLINT(libtorch-inplace-on-view)
  // NOLINTNEXTLINE(libtorch-*)
  return x.select(0, 0).fill_(1);
}
