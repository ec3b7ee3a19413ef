// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch

// A tensor stored in a queue that a worker reads reaches that worker; a
// producer that refills the same buffer for the next item races it.

#include <torch/torch.h>
#include <future>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

void consume(const torch::Tensor &t);
torch::Tensor next_frame();

// Positive: the staging buffer is pushed, then refilled in place by the
// next iteration while the consumer may still be reading it.

void PositiveStagingRefill(int n) {
  std::mutex m;
  std::queue<torch::Tensor> q;
  std::thread consumer([&] {
    for (int i = 0; i < n; ++i) {
      std::lock_guard<std::mutex> lock(m);
      if (!q.empty()) {
        consume(q.front());
        q.pop();
      }
    }
  });
  auto staging = torch::empty({3, 224, 224});
  for (int i = 0; i < n; ++i) {
    staging.copy_(next_frame());
    std::lock_guard<std::mutex> lock(m);
    q.push(staging);
  }
  consumer.join();
  // CHECK-NOTES: :[[@LINE-3]]:12: warning: argument 'staging' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-17]]:15: note: this worker reads 'q', which the spawner stores it in
  // CHECK-NOTES: :[[@LINE-7]]:13: note: 'copy_' writes 'staging' in place here
  // CHECK-FIXES: q.push(staging.clone());
}

// Positive: an out= refill, into a queue a member function worker reads.

class Prefetcher {
public:
  Prefetcher() : worker_(&Prefetcher::drain, this) {}
  void produce(const torch::Tensor &a, const torch::Tensor &b) {
    torch::Tensor out = buffer_;
    for (int i = 0; i < 4; ++i) {
      torch::mul_out(out, a, b);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ready_.push_back(out);
      }
    }
  }

private:
  void drain() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &t : ready_)
      consume(t);
  }
  torch::Tensor buffer_;
  std::mutex mutex_;
  std::deque<torch::Tensor> ready_;
  std::thread worker_;
  // CHECK-NOTES: :[[@LINE-15]]:26: warning: argument 'out' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
  // CHECK-NOTES: :[[@LINE-23]]:18: note: this worker reads 'ready_', which the spawner stores it in
  // CHECK-NOTES: :[[@LINE-20]]:7: note: 'mul_out' writes 'buffer_' in place here
  // CHECK-FIXES: ready_.push_back(out.clone());
};

// Negative: a clone is pushed, or a fresh tensor per item.

void NegativeClonePushed(int n) {
  std::mutex m;
  std::queue<torch::Tensor> q;
  std::thread consumer([&] {
    std::lock_guard<std::mutex> lock(m);
    consume(q.front());
  });
  auto staging = torch::empty({3});
  for (int i = 0; i < n; ++i) {
    staging.copy_(next_frame());
    std::lock_guard<std::mutex> lock(m);
    q.push(staging.clone());
  }
  consumer.join();
}

void NegativeFreshPerItem(int n) {
  std::mutex m;
  std::queue<torch::Tensor> q;
  std::thread consumer([&] {
    std::lock_guard<std::mutex> lock(m);
    consume(q.front());
  });
  for (int i = 0; i < n; ++i) {
    auto frame = torch::empty({3});
    frame.copy_(next_frame());
    std::lock_guard<std::mutex> lock(m);
    q.push(frame);
  }
  consumer.join();
}

// Negative: no worker reads the queue, or the consumer is joined before the
// refill.

void NegativeNoReader(int n) {
  std::vector<torch::Tensor> kept;
  auto staging = torch::empty({3});
  std::thread logger([] { consume(torch::ones({1})); });
  for (int i = 0; i < n; ++i) {
    staging.copy_(next_frame());
    kept.push_back(staging);
  }
  logger.join();
}

void NegativeJoinedBeforeRefill() {
  std::queue<torch::Tensor> q;
  auto staging = torch::empty({3});
  q.push(staging);
  std::thread consumer([&] { consume(q.front()); });
  consumer.join();
  staging.copy_(next_frame());
}

// Negative: `add` on a tensor computes; it stores nothing.

void NegativeTensorAdd(int n) {
  auto acc = torch::zeros({3});
  std::thread reader([&] { consume(acc); });
  auto staging = torch::empty({3});
  for (int i = 0; i < n; ++i) {
    staging.copy_(next_frame());
    consume(acc.add(staging));
  }
  reader.join();
}

// Positive: the queue is a member of a local channel, and the consumer is
// started after the items are queued: it still reads them after every
// refill.
struct Channel {
  std::mutex m;
  std::deque<torch::Tensor> items;
};

void PositiveChannelMemberConsumedLater(const torch::Tensor &basis, int n) {
  Channel chan;
  auto features = torch::empty({1, 10});
  for (int i = 0; i < n; ++i) {
    at::mul_out(features, next_frame(), basis);
    std::lock_guard<std::mutex> lock(chan.m);
    chan.items.push_back(features);
  }
  std::thread decoder([&] {
    std::lock_guard<std::mutex> lock(chan.m);
    while (!chan.items.empty()) {
      consume(chan.items.front());
      chan.items.pop_front();
    }
  });
  decoder.join();
  // CHECK-NOTES: :[[@LINE-10]]:26: warning: argument 'features' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-9]]:15: note: this worker reads 'chan', which the spawner stores it in
  // CHECK-NOTES: :[[@LINE-14]]:5: note: 'mul_out' writes 'features' in place here
  // CHECK-FIXES: chan.items.push_back(features.clone());
}

// Negative: a fresh tensor per item into the channel.
void NegativeChannelFreshPerItem(const torch::Tensor &basis, int n) {
  Channel chan;
  for (int i = 0; i < n; ++i) {
    auto features = next_frame() * basis;
    std::lock_guard<std::mutex> lock(chan.m);
    chan.items.push_back(features);
  }
  std::thread decoder([&] {
    std::lock_guard<std::mutex> lock(chan.m);
    consume(chan.items.front());
  });
  decoder.join();
}

// Positive: a queue class whose tensors are held in a std::deque member: a
// struct of tensors that holds them only through a container stores handles.
class FrameQueue {
public:
  void push(torch::Tensor frame) {
    std::lock_guard<std::mutex> lock(m_);
    frames_.push_back(std::move(frame));
  }
  bool pop(torch::Tensor &out) {
    std::lock_guard<std::mutex> lock(m_);
    if (frames_.empty())
      return false;
    out = frames_.front();
    frames_.pop_front();
    return true;
  }

private:
  std::mutex m_;
  std::deque<torch::Tensor> frames_;
};

void drain(FrameQueue &queue) {
  torch::Tensor frame;
  while (queue.pop(frame))
    consume(frame);
}

void PositiveQueueClassWithDequeMember(const torch::Tensor &scale, int n) {
  FrameQueue queue;
  std::thread consumer(drain, std::ref(queue));
  auto staging = torch::empty({4});
  for (int i = 0; i < n; ++i) {
    at::mul_out(staging, next_frame(), scale);
    queue.push(staging);
  }
  consumer.join();
  // CHECK-NOTES: :[[@LINE-3]]:16: warning: argument 'staging' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-8]]:15: note: this worker reads 'queue', which the spawner stores it in
  // CHECK-NOTES: :[[@LINE-6]]:5: note: 'mul_out' writes 'staging' in place here
  // CHECK-FIXES: queue.push(staging.clone());
}

// Negative: a buffer class with a tensor member copies what it is given.
class LatestFrame {
public:
  void add(const torch::Tensor &frame) {
    std::lock_guard<std::mutex> lock(m_);
    latest_.copy_(frame);
  }
  torch::Tensor get() {
    std::lock_guard<std::mutex> lock(m_);
    return latest_.clone();
  }

private:
  std::mutex m_;
  torch::Tensor latest_ = torch::zeros({4});
};

void show(LatestFrame &buffer) { consume(buffer.get()); }

void NegativeBufferClassCopiesIn(const torch::Tensor &scale, int n) {
  LatestFrame buffer;
  std::thread viewer(show, std::ref(buffer));
  auto staging = torch::empty({4});
  for (int i = 0; i < n; ++i) {
    at::mul_out(staging, next_frame(), scale);
    buffer.add(staging);
  }
  viewer.join();
}

// A promise is a channel of one value: set_value hands it to the worker that
// waits on the future, as a push hands it to a queue's reader.
float consumeValue(const torch::Tensor &x);

void PositivePromiseThenWrite() {
  std::promise<torch::Tensor> handoff;
  std::thread reader([&] { consumeValue(handoff.get_future().get()); });
  auto buf = torch::zeros({4});
  handoff.set_value(buf);
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: argument 'buf' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE-4]]:15: note: this worker reads 'handoff', which the spawner stores it in
  buf.add_(1);
  // CHECK-NOTES: :[[@LINE-1]]:7: note: 'add_' writes 'buf' in place here
  reader.join();
}

// One promise per step, in a container the worker walks.
void PositivePromisePerStep() {
  std::vector<std::promise<torch::Tensor>> steps(3);
  std::thread reader([&] {
    for (auto &step : steps)
      consumeValue(step.get_future().get());
  });
  auto buf = torch::zeros({4});
  for (int k = 0; k < 3; ++k) {
    steps[k].set_value(buf);
    // CHECK-NOTES: :[[@LINE-1]]:24: warning: argument 'buf' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
    // CHECK-NOTES: :[[@LINE-8]]:15: note: this worker reads 'steps', which the spawner stores it in
    buf.add_(1);
    // CHECK-NOTES: :[[@LINE-1]]:9: note: 'add_' writes 'buf' in place here
  }
  reader.join();
}

void NegativePromiseOfAClone() {
  std::promise<torch::Tensor> handoff;
  std::thread reader([&] { consumeValue(handoff.get_future().get()); });
  auto buf = torch::zeros({4});
  handoff.set_value(buf.clone());
  buf.add_(1);
  reader.join();
}

void NegativeWrittenAfterTheJoin() {
  std::promise<torch::Tensor> handoff;
  std::thread reader([&] { consumeValue(handoff.get_future().get()); });
  auto buf = torch::zeros({4});
  handoff.set_value(buf);
  reader.join();
  buf.add_(1);
}
