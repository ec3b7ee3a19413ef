// The libtorch 1.13.1 and C++ behaviours that libtorch-worker-missing-clone's
// messages state about how a tensor reaches another thread, run against the
// real library.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ATen/Parallel.h>

#include <functional>
#include <future>
#include <mutex>
#include <queue>
#include <set>
#include <thread>

namespace {

void fillOnes(torch::Tensor &t) { t.fill_(1); }

TEST(WorkerFacts, StdRefHandsTheWorkerTheSpawnersTensor) {
  auto x = torch::zeros({4});
  std::thread t(fillOnes, std::ref(x));
  t.join();
  EXPECT_EQ(x.sum().item<float>(), 4.0f);
}

TEST(WorkerFacts, ALambdasByValueParameterSharesTheArgumentsStorage) {
  auto frame = torch::full({4}, 255.0);
  std::thread t([](torch::Tensor f) { f.div_(255); }, frame);
  t.join();
  // The worker's copy of the handle wrote the spawner's storage.
  EXPECT_FLOAT_EQ(frame.sum().item<float>(), 4.0f);
}

TEST(WorkerFacts, AParameterListHoldsTheModulesOwnTensors) {
  torch::nn::Linear model(2, 1);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.5));
  auto params = model->parameters();
  auto before = params[0].clone();
  model->forward(torch::ones({1, 2})).sum().backward();
  opt.step();
  // The step moved the tensors a worker holding `params` reads.
  EXPECT_EQ(params[0].data_ptr(), model->weight.data_ptr());
  EXPECT_FALSE(torch::equal(params[0], before));
}

TEST(WorkerFacts, AQueuedTensorIsTheProducersBuffer) {
  std::queue<torch::Tensor> q;
  auto staging = torch::zeros({3});
  q.push(staging);
  staging.copy_(torch::ones({3}));
  // Refilling the buffer for the next item rewrote the queued one.
  EXPECT_EQ(q.front().sum().item<float>(), 3.0f);
}

TEST(WorkerFacts, AThreadPoolsFutureWaitsForTheTask) {
  // An executor's future is the join the check orders writes against.
  auto x = torch::zeros({2});
  std::packaged_task<void()> task([&x] { x.add_(1); });
  std::future<void> done = task.get_future();
  std::thread worker(std::move(task));
  done.wait();
  EXPECT_EQ(x.sum().item<float>(), 2.0f);
  worker.join();
}

TEST(WorkerFacts, ParallelForRunsChunksOnSeveralThreads) {
  at::set_num_threads(2);
  ASSERT_EQ(at::get_num_threads(), 2);
  std::mutex m;
  std::set<int64_t> begins;
  std::set<int> threads;
  at::parallel_for(0, 1024, 1, [&](int64_t begin, int64_t) {
    std::lock_guard<std::mutex> lock(m);
    begins.insert(begin);
    threads.insert(at::get_thread_num());
  });
  // Chunks run concurrently on the intra-op threads, so one chunk's read of
  // another's rows is unordered with that chunk's writes.
  EXPECT_GT(begins.size(), 1u);
  EXPECT_GT(threads.size(), 1u);
}

} // namespace
