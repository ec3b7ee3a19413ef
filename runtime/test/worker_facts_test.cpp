// The libtorch 1.13.1 and C++ behaviours that libtorch-worker-missing-clone's
// messages state about how a tensor reaches another thread, run against the
// real library.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <ATen/Parallel.h>
#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>

#include <functional>
#include <map>
#include <string>
#include <future>
#include <mutex>
#include <optional>
#include <queue>
#include <algorithm>
#include <utility>
#include <vector>
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

TEST(WorkerFacts, ParallelForChunksSplitTheRangeWithoutOverlap) {
  // What "its own part" means: each chunk gets a [begin, end) of its own and
  // together they cover the range. Whether chunks run concurrently depends on
  // the caller's build: the template is instantiated in the caller's
  // translation unit, and without -fopenmp (this test's build) its OpenMP
  // pragma is ignored and the body runs inline as one chunk.
  std::mutex m;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  at::parallel_for(0, 1024, 1, [&](int64_t begin, int64_t end) {
    std::lock_guard<std::mutex> lock(m);
    chunks.emplace_back(begin, end);
  });
  std::sort(chunks.begin(), chunks.end());
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.front().first, 0);
  EXPECT_EQ(chunks.back().second, 1024);
  for (size_t i = 1; i < chunks.size(); ++i)
    EXPECT_EQ(chunks[i - 1].second, chunks[i].first);
}

TEST(WorkerFacts, ACopiedMapOfTensorsSharesEachTensorsStorage) {
  std::map<std::string, torch::Tensor> features{{"mel", torch::ones({4})}};
  auto copy = features; // What a by-value capture or argument makes.
  for (auto &kv : features)
    kv.second.sub_(1);
  EXPECT_EQ(copy.at("mel").sum().item<float>(), 0.0f);
}

// Note [A member refilled by get()]: the DataLoader collects a batch's
// examples before Stack<> stacks them, so a get() that refills and returns a
// member hands out one storage: every row is the last sample.
struct ScratchDataset : torch::data::datasets::Dataset<ScratchDataset> {
  torch::data::Example<> get(size_t index) override {
    scratch_.fill_(static_cast<double>(index));
    return {scratch_, torch::tensor(static_cast<int64_t>(index))};
  }
  c10::optional<size_t> size() const override { return 4; }
  torch::Tensor scratch_ = torch::zeros({2});
};

TEST(WorkerFacts, ARefilledMemberReturnedByGetMakesEveryRowTheLastSample) {
  auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      ScratchDataset().map(torch::data::transforms::Stack<>()), 4);
  for (auto &batch : *loader) {
    ASSERT_EQ(batch.data.size(0), 4);
    // Labels 0..3, data all 3: the last index decoded.
    EXPECT_EQ(batch.target[0].item<int64_t>(), 0);
    EXPECT_TRUE(torch::allclose(batch.data, torch::full({4, 2}, 3.0)));
  }
}

// Note [Gradients handed to a worker]: p.grad() is the gradient tensor, and
// zero_grad() zeroes it in place (Module::zero_grad(true) resets it instead).
TEST(WorkerFacts, ZeroGradZeroesTheGradientTensorsAWorkerHolds) {
  torch::nn::Linear model(2, 1);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(torch::ones({1, 2})).sum().backward();
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  ASSERT_GT(grads[0].abs().sum().item<float>(), 0.0f);
  opt.zero_grad();
  EXPECT_EQ(grads[0].abs().sum().item<float>(), 0.0f);

  model->forward(torch::ones({1, 2})).sum().backward();
  auto g = model->weight.grad();
  ASSERT_GT(g.abs().sum().item<float>(), 0.0f);
  model->zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(model->weight.grad().defined());
  EXPECT_GT(g.abs().sum().item<float>(), 0.0f);
}

// Note [A member handed out and refilled]: a method that returns its member
// hands out the member's storage; a later call that refills the member in
// place changes what a job given the earlier result reads, unless the job
// was given a clone.
class ChunkReader {
public:
  const torch::Tensor &read(int i) {
    staging_.fill_(static_cast<float>(i));
    return staging_;
  }

private:
  torch::Tensor staging_ = torch::empty({3});
};

TEST(WorkerFacts, AHandleAMethodReturnsIsRefilledByItsNextCall) {
  ChunkReader reader;
  torch::Tensor first = reader.read(1);
  torch::Tensor kept = reader.read(1).clone();
  reader.read(2);
  EXPECT_TRUE(torch::allclose(first, torch::full({3}, 2.0f)));
  EXPECT_TRUE(torch::allclose(kept, torch::full({3}, 1.0f)));
}

// Note [Methods that queue their arguments]: named_parameters() and
// parameters() are handles of the module's own tensors, so a queued copy of
// either sees the optimizer step that follows the hand-off.
TEST(WorkerFacts, AQueuedParameterListSeesTheNextStep) {
  torch::manual_seed(0);
  torch::nn::Linear model(3, 2);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(1.0));
  std::vector<torch::OrderedDict<std::string, torch::Tensor>> named_queue;
  std::vector<std::vector<torch::Tensor>> queue;
  named_queue.push_back(model->named_parameters());
  queue.push_back(model->parameters());
  torch::Tensor before = model->weight.detach().clone();
  for (auto &p : model->parameters())
    p.mutable_grad() = torch::ones_like(p);
  opt.step();
  const torch::Tensor &queued_named = named_queue.front()["weight"];
  EXPECT_TRUE(torch::allclose(queued_named, before - 1));
  EXPECT_TRUE(torch::allclose(queue.front().front(), before - 1));
}

// A promise is a channel of one handle: the future's value shares the
// storage that was set, so a later in-place write is what the waiting
// worker reads.
TEST(WorkerFacts, APromiseHandsOverTheStorageItWasSet) {
  std::promise<torch::Tensor> handoff;
  std::future<torch::Tensor> value = handoff.get_future();
  torch::Tensor buf = torch::zeros({4});
  handoff.set_value(buf);
  buf.add_(1);
  torch::Tensor got = value.get();
  EXPECT_TRUE(got.is_same(buf));
  EXPECT_EQ(got.sum().item<float>(), 4.0f);
}

// A struct or optional built from a tensor copies its handle: the worker's
// copy of the holder reads what the spawner later writes through the tensor
// it was built from.
TEST(WorkerFacts, AHolderBuiltFromATensorSharesItsStorage) {
  struct Batch {
    torch::Tensor obs, act;
  };
  torch::Tensor obs = torch::full({4}, 255.0), act = torch::zeros({4});
  Batch b{obs, act};
  std::optional<torch::Tensor> held = obs;
  std::promise<void> written;
  std::shared_future<void> ready = written.get_future().share();
  auto worker = std::async(std::launch::async, [b, held, ready] {
    ready.wait();
    return std::make_pair(b.obs.sum().item<float>(), held->sum().item<float>());
  });
  obs.div_(255);
  written.set_value();
  auto [fromStruct, fromOptional] = worker.get();
  EXPECT_FLOAT_EQ(fromStruct, 4.0f);
  EXPECT_FLOAT_EQ(fromOptional, 4.0f);
}

// Note [libtorch's own containers]: a copy of a c10::Dict shares the
// dictionary, and an entry taken from it is the stored tensor.
TEST(WorkerFacts, ACopiedDictSharesItsEntries) {
  c10::Dict<std::string, at::Tensor> feats;
  feats.insert("user", torch::zeros({2}));
  c10::Dict<std::string, at::Tensor> exported = feats;
  at::Tensor user = feats.at("user");
  user.add_(1);
  EXPECT_TRUE(torch::equal(exported.at("user"), torch::ones({2})));
}

// Note [Callbacks of a future]: a callback runs when the future is
// completed, and markCompleted returns after it has run.
TEST(WorkerFacts, AFuturesCallbackSeesWritesBeforeCompletion) {
  auto fut = c10::make_intrusive<c10::ivalue::Future>(c10::NoneType::get());
  at::Tensor logits = torch::zeros({2});
  double seen = -1;
  fut->addCallback([logits, &seen](c10::ivalue::Future &) {
    seen = logits.sum().item<double>();
  });
  logits.fill_(3);
  fut->markCompleted();
  EXPECT_EQ(seen, 6.0);
}

} // namespace
