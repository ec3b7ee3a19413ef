// Mock of <c10/core/thread_pool.h> for the lit tests; see ATen/ATen.h for the
// rules.
#pragma once

#include <cstddef>
#include <functional>

namespace c10 {
class TaskThreadPoolBase {
public:
  virtual void run(std::function<void()> func) = 0;
  virtual size_t size() const = 0;
  virtual ~TaskThreadPoolBase() noexcept = default;
};
class ThreadPool : public c10::TaskThreadPoolBase {
public:
  explicit ThreadPool(int pool_size, int numa_node_id = -1);
  ~ThreadPool() override;
  size_t size() const override;
  void run(std::function<void()> func) override;
};
} // namespace c10
