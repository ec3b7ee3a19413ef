// Ground truth: the same behaviours against Debian's real libtorch headers.
// REQUIRES: real-libtorch
// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %real_torch

#include <torch/torch.h>

#include <c10/core/thread_pool.h>

#include <deque>
#include <functional>
#include <memory>
#include <map>
#include <string>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

void consume(const torch::Tensor &t);
void normalize_inplace(torch::Tensor x) { x.div_(255); }

void PositiveThread(torch::Tensor batch) {
  std::thread t(normalize_inplace, batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: argument 'batch' shares its storage with worker entry point 'std::thread' and the worker writes it in place while the spawner still uses it [libtorch-worker-missing-clone]
  // CHECK-FIXES: std::thread t(normalize_inplace, batch.clone());
  consume(batch);
  t.join();
}

torch::Tensor PositiveAsync(torch::Tensor buf, int64_t n) {
  auto fut = std::async(std::launch::async,
                        [view = buf.narrow(0, 0, n)] { return view.sum(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: by-value capture 'view' shares its storage with worker entry point 'std::async' and the spawner writes it in place before the worker is joined
  // CHECK-FIXES: [view = buf.narrow(0, 0, n).clone()] { return view.sum(); });
  buf.div_(2);
  return fut.get();
}

void PositiveParallelFor(torch::Tensor acc, torch::Tensor x) {
  at::parallel_for(0, 4, 1, [&](int64_t begin, int64_t end) {
    acc.add_(x);
    // CHECK-MESSAGES: :[[@LINE-2]]:30: warning: by-reference capture 'acc' shares its storage with worker entry point 'at::parallel_for' and every chunk writes it in place, not only its [begin, end) part
  });
}

void NegativeParallelForPartitioned(torch::Tensor out, torch::Tensor x) {
  at::parallel_for(0, 4, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out.select(0, i).copy_(x.select(0, i));
  });
}

torch::Tensor NegativeGetBeforeWrite(torch::Tensor buf) {
  auto fut = std::async(std::launch::async, [buf] { return buf.sum(); });
  auto s = fut.get();
  buf.div_(2);
  return s;
}

// The DataLoader: a dataset whose get() returns views of its own storage.

struct ViewDataset : torch::data::datasets::Dataset<ViewDataset> {
  ViewDataset() : images_(torch::rand({8, 4})), labels_(torch::rand({8})) {}
  torch::data::Example<> get(size_t i) override {
    return {images_[i], labels_[i]};
  }
  torch::optional<size_t> size() const override { return 8; }
  torch::Tensor images_, labels_;
};

void PositiveDatasetViewsWritten() {
  auto loader = torch::data::make_data_loader(ViewDataset(), 4);
  for (auto &batch : *loader)
    for (auto &ex : batch)
      ex.data.div_(255);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'div_' writes example 'ex' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()': every epoch sees the data already written
}

void NegativeDatasetStacked() {
  auto loader = torch::data::make_data_loader(
      ViewDataset().map(torch::data::transforms::Stack<>()), 4);
  for (auto &batch : *loader)
    batch.data.div_(255);
}

// A ModuleHolder copied into a worker.

void PositiveDatasetTransformWrites() {
  auto dataset = ViewDataset()
                     .map(torch::data::transforms::TensorLambda<>(
                         [](torch::Tensor img) { return img.div_(255); }))
                     .map(torch::data::transforms::Stack<>());
  // CHECK-MESSAGES: :[[@LINE-2]]:61: warning: 'div_' writes example 'img' in place, but dataset 'ViewDataset' returns views of its own storage from 'get()'
  auto loader = torch::data::make_data_loader(std::move(dataset), 4);
}

void NegativeDatasetTransformComputes() {
  auto dataset = ViewDataset()
                     .map(torch::data::transforms::TensorLambda<>(
                         [](torch::Tensor img) { return img / 255; }))
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 4);
}

void PositiveModuleCopyInWorker(const torch::Tensor &x) {
  torch::nn::Linear global(4, 4);
  std::thread t([&] {
    auto local = global;
    // CHECK-MESSAGES: :[[@LINE-2]]:18: warning: by-reference capture 'global' shares its module with worker entry point 'std::thread' and the worker updates its parameters in place while the spawner still uses it
    // CHECK-FIXES: auto local = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(global->clone()));
    torch::optim::SGD opt(local->parameters(), torch::optim::SGDOptions(0.1));
    opt.step();
  });
  consume(global->forward(x));
  t.join();
}

// A vector of tensors handed to a thread.

void halve_all(std::vector<torch::Tensor> v) {
  for (auto &t : v)
    t.div_(2);
}

void PositiveVectorArgument(std::vector<torch::Tensor> batch) {
  std::thread t(halve_all, batch);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: argument 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the worker writes them in place while the spawner still uses them
  consume(batch[0]);
  t.join();
}

// Note [Workers of a loop]: asynchronous workers handed the global model,
// each stepping it without a lock.

void step_global(torch::nn::Linear global, int steps) {
  auto params = global->parameters();
  torch::NoGradGuard no_grad;
  for (int k = 0; k < steps; ++k)
    for (auto &p : params)
      p.sub_(0.01);
}

void PositiveAsynchronousWorkers() {
  torch::nn::Linear global(4, 4);
  std::vector<std::thread> workers;
  for (int id = 0; id < 4; ++id)
    workers.emplace_back(step_global, global, 10);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: argument 'global' shares its module with worker entry point 'std::thread' and every worker the loop starts updates its parameters in place while the others use it
  for (auto &w : workers)
    w.join();
}

std::mutex global_mutex;

void step_global_locked(torch::nn::Linear global, int steps) {
  for (int k = 0; k < steps; ++k) {
    std::lock_guard<std::mutex> lock(global_mutex);
    torch::NoGradGuard no_grad;
    for (auto &p : global->parameters())
      p.sub_(0.01);
  }
}

void NegativeLockedWorkers() {
  torch::nn::Linear global(4, 4);
  std::vector<std::thread> workers;
  for (int id = 0; id < 4; ++id)
    workers.emplace_back(step_global_locked, global, 10);
  for (auto &w : workers)
    w.join();
}

// Note [Members reached through this], and a callable kept in a
// std::function first.
class Learner {
public:
  void PositiveCapturesThis() {
    auto done = std::async(std::launch::async, [this] { return rollout_.sum(); });
    // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: by-reference capture 'this->rollout_' shares its storage with worker entry point 'std::async' and the spawner writes it in place before the worker is joined
    rollout_.zero_();
    done.get();
  }
  void NegativeClonedForTheWorker() {
    auto done = std::async(std::launch::async,
                           [snapshot = rollout_.clone()] { return snapshot.sum(); });
    rollout_.zero_();
    done.get();
  }

private:
  torch::Tensor rollout_ = torch::zeros({8});
};

void PositiveStoredFunction(torch::Tensor buf) {
  std::function<void()> job = [buf] { consume(buf); };
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: by-value capture 'buf' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
  // CHECK-FIXES: std::function<void()> job = [buf = buf.clone()] { consume(buf); };
  std::thread t(job);
  buf.add_(1);
  t.join();
}

// A std::map of tensors copied into at::launch, normalised in place.
void PositiveMapIntoLaunch(std::map<std::string, torch::Tensor> feats) {
  at::launch([feats] { (void)feats.at("mel").sum(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: by-value capture 'feats' holds tensors that share their storage with worker entry point 'at::launch' and the spawner writes them in place before the worker is joined
  for (auto &kv : feats) {
    auto &t = kv.second;
    t.sub_(t.mean());
  }
}

// Note [A member refilled by get()].
struct ScratchDataset : torch::data::datasets::Dataset<ScratchDataset> {
  torch::data::Example<> get(size_t index) override {
    scratch_.fill_(static_cast<double>(index));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'fill_' refills member 'scratch_' in place in 'get()', which returns it
    return {scratch_, torch::tensor(static_cast<int64_t>(index))};
    // CHECK-FIXES: return {scratch_.clone(), torch::tensor(static_cast<int64_t>(index))};
  }
  torch::optional<size_t> size() const override { return 4; }
  torch::Tensor scratch_ = torch::zeros({2});
};

struct ClonedScratchDataset : torch::data::datasets::Dataset<ClonedScratchDataset> {
  torch::data::Example<> get(size_t index) override {
    scratch_.fill_(static_cast<double>(index));
    return {scratch_.clone(), torch::tensor(static_cast<int64_t>(index))};
  }
  torch::optional<size_t> size() const override { return 4; }
  torch::Tensor scratch_ = torch::zeros({2});
};

// Note [Gradients handed to a worker].
void PositiveGradientsToThreadPool(torch::nn::Linear &model, c10::ThreadPool &pool) {
  torch::optim::SGD opt(model->parameters(), 0.1);
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  pool.run([grads] {
    for (auto &g : grads)
      (void)g.sum();
  });
  // CHECK-MESSAGES: :[[@LINE-4]]:13: warning: by-value capture 'grads' holds tensors that share their storage with worker entry point 'c10::ThreadPool::run' and the spawner writes them in place before the worker is joined
  opt.step();
  opt.zero_grad();
}

// Note [Methods that queue their arguments], with torch::OrderedDict.
class SnapshotWriter {
public:
  SnapshotWriter() : thread_([this] { drain(); }) {}
  ~SnapshotWriter() { thread_.join(); }
  void request(torch::OrderedDict<std::string, torch::Tensor> params) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(std::move(params));
  }

private:
  void drain() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &params : pending_)
      for (const auto &item : params)
        total_ += item.value().sum().item<double>();
  }
  std::mutex mu_;
  double total_ = 0;
  std::vector<torch::OrderedDict<std::string, torch::Tensor>> pending_;
  std::thread thread_;
};

void PositiveSnapshotQueuedThenStepped() {
  torch::nn::Linear model(4, 2);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  SnapshotWriter writer;
  for (int step = 0; step < 3; ++step) {
    opt.step();
    writer.request(model->named_parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: argument 'model->named_parameters()' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  }
}

// A method that starts a thread with its argument and keeps it in a member
// (Note [Functions that start a worker with their arguments]).
class AsyncEvaluator {
public:
  void submit(torch::nn::Linear policy) {
    jobs_.emplace_back([policy]() mutable { policy->forward(torch::ones({1, 4})); });
  }
  void wait() {
    for (auto &job : jobs_)
      job.join();
  }

private:
  std::vector<std::thread> jobs_;
};

void PositiveEvaluatedWhileStepped() {
  torch::nn::Linear policy(4, 2);
  torch::optim::SGD opt(policy->parameters(), torch::optim::SGDOptions(0.1));
  AsyncEvaluator evaluator;
  evaluator.submit(policy);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: argument 'policy' shares its module with worker entry point 'std::thread' and the spawner updates its parameters in place before the worker is joined [libtorch-worker-missing-clone]
  opt.step();
  evaluator.wait();
}

// A struct built from the spawner's tensor, and a shared pointer to one
// (Note [Holders built from tensors]).
struct RealBatch {
  torch::Tensor images, labels;
};

void PositiveStructBuiltFromTensor(torch::Tensor images, torch::Tensor labels) {
  RealBatch batch{images, labels};
  std::thread preview([batch] { batch.images.mean(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: by-value capture 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  images.sub_(127.5).div_(127.5);
  preview.join();
}

void PositiveSharedPointerToStruct(std::shared_ptr<RealBatch> batch) {
  std::thread preview([batch] { batch->images.mean(); });
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: by-value capture 'batch' holds tensors that share their storage with worker entry point 'std::thread' and the spawner writes them in place before the worker is joined [libtorch-worker-missing-clone]
  batch->images.div_(255);
  preview.join();
}

void NegativeStructOfClones(torch::Tensor images, torch::Tensor labels) {
  RealBatch batch{images.clone(), labels};
  std::thread preview([batch] { batch.images.mean(); });
  images.sub_(127.5);
  preview.join();
}

// A sink behind a virtual interface whose override queues for its writer
// thread (Note [Calls that run code chosen at run time]).
class RealSink {
public:
  virtual ~RealSink() = default;
  virtual void consume(const torch::Tensor &t) = 0;
};
class RealThreadedSink final : public RealSink {
public:
  RealThreadedSink() : writer_([this] { run(); }) {}
  ~RealThreadedSink() override { writer_.join(); }
  void consume(const torch::Tensor &t) override {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(t);
  }

private:
  void run() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &t : pending_)
      (void)t.sum();
  }
  std::mutex mu_;
  std::deque<torch::Tensor> pending_;
  std::thread writer_;
};

void PositiveVirtualSink(RealSink &sink, torch::Tensor grad) {
  sink.consume(grad);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: argument 'grad' shares its storage with worker entry point 'std::thread'
  grad.zero_();
}

// Note [Lists that refer to their tensors], on the real at::TensorList and
// _foreach_mul_.
double realNormOf(at::TensorList grads);

std::future<double> realMonitor(at::TensorList grads) {
  return std::async(std::launch::async, [grads] { return realNormOf(grads); });
}

void PositiveForeachUnscale(torch::nn::Linear net) {
  std::vector<torch::Tensor> grads;
  for (auto &p : net->parameters())
    grads.push_back(p.grad());
  auto report = realMonitor(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: argument 'grads' holds tensors that share their storage with worker entry point 'std::async'
  torch::_foreach_mul_(grads, 1.0 / 1024);
  report.get();
}

void NegativeForeachAfterTheReport(torch::nn::Linear net) {
  std::vector<torch::Tensor> grads;
  for (auto &p : net->parameters())
    grads.push_back(p.grad());
  auto report = realMonitor(grads);
  report.get();
  torch::_foreach_mul_(grads, 1.0 / 1024);
}

// Note [Holders built from tensors], on a real std::unique_ptr to a tensor.
void realThumbnail(std::unique_ptr<torch::Tensor> pixels);

void PositiveUniquePointerToTheFrame(torch::Tensor frame) {
  auto own = std::make_unique<torch::Tensor>(frame);
  std::thread encoder(realThumbnail, std::move(own));
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: argument 'own' holds tensors that share their storage with worker entry point 'std::thread'
  frame.sub_(0.5);
  encoder.join();
}

void NegativeUniquePointerToAClone(torch::Tensor frame) {
  auto own = std::make_unique<torch::Tensor>(frame.clone());
  std::thread encoder(realThumbnail, std::move(own));
  frame.sub_(0.5);
  encoder.join();
}
