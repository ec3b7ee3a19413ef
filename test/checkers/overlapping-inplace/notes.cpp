// RUN: %check_clang_tidy %s libtorch-overlapping-inplace %t -- -- %mock_torch

#include <torch/torch.h>

void PositiveShiftCopyNamed(torch::Tensor history, int64_t len) {
  auto older = history.narrow(0, 0, len);
  auto newer = history.narrow(0, 1, len);
  newer.copy_(older);
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: source 'older' of 'copy_' overlaps (a shifted slice along dimension 0 of) its destination 'newer'; PyTorch throws 'unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location' when it can see the overlap and silently computes a wrong result when it cannot [libtorch-overlapping-inplace]
  // CHECK-NOTES: :[[@LINE-4]]:24: note: view of parameter 'history' created here by 'narrow'
  // CHECK-NOTES: :[[@LINE-4]]:24: note: view of parameter 'history' created here by 'narrow'
  // CHECK-FIXES: newer.copy_(older.clone());
}

void PositiveMaskIsView(torch::Tensor flags) {
  auto first = flags.select(1, 0);
  flags.masked_fill_(first, false);
  // CHECK-NOTES: :[[@LINE-1]]:9: warning: mask 'first' of 'masked_fill_' is a view of its destination 'flags'
  // CHECK-NOTES: :[[@LINE-3]]:22: note: view of parameter 'flags' created here by 'select'
  // CHECK-FIXES: flags.masked_fill_(first.clone(), false);
}

void PositiveInlineViewHasNoNote(torch::Tensor a) {
  a.sub_(a.slice(1, 0, 1));
  // CHECK-NOTES: :[[@LINE-1]]:5: warning: operand 'a.slice(1, 0, 1)' of 'sub_' is a view of its destination 'a'
  // CHECK-FIXES: a.sub_(a.slice(1, 0, 1).clone());
}
