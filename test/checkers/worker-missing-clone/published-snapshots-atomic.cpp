// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch -std=c++20
// A member published through a std::atomic<std::shared_ptr> (C++20): Note
// [Handles published atomically].

#include <torch/torch.h>

#include <atomic>
#include <memory>

// A std::atomic member (C++20).
class Table {
public:
  void refresh(const torch::Tensor &rows) {
    rows_.copy_(rows);
    // CHECK-NOTES: :[[@LINE-1]]:11: warning: 'copy_' writes member 'rows_' in place while other threads may still read the snapshot of it that 'refresh' publishes atomically in 'current_': the snapshot shares the member's storage [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE+1]]:5: note: 'rows_' is published here without a copy
    current_.store(std::make_shared<const torch::Tensor>(rows_));
  }

private:
  torch::Tensor rows_;
  std::atomic<std::shared_ptr<const torch::Tensor>> current_;
};

// CHECK-FIXES: current_.store(std::make_shared<const torch::Tensor>(rows_.clone()));
