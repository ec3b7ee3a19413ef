// CASE: an inference batcher answers each request with a c10::ivalue::Future
//       whose callback (capturing the batcher's reused logits buffer) builds
//       the reply; the futures are completed by a network thread when the
//       socket is writable, but the batcher refills the buffer for the next
//       batch with copy_ as soon as it has registered the callback
// SOURCE: the kind of code in TorchServe-like C++ frontends and RPC handlers
//         (Future::addCallback reply builders, preallocated output buffers)
// KIND: bug
// HARM: the reply of batch 0 carries the argmax of batch 1
#include <torch/torch.h>
#include <ATen/core/ivalue.h>
#include <condition_variable>
#include <deque>
#include <future>
#include <iostream>
#include <mutex>
#include <thread>

namespace serving {

using FuturePtr = c10::intrusive_ptr<c10::ivalue::Future>;

class CompletionThread {
 public:
  explicit CompletionThread(std::shared_future<void> writable)
      : writable_(std::move(writable)), th_([this] { loop(); }) {}
  ~CompletionThread() {
    { std::lock_guard<std::mutex> g(mu_); done_ = true; }
    cv_.notify_all();
    th_.join();
  }
  void enqueue(FuturePtr f) {
    { std::lock_guard<std::mutex> g(mu_); q_.push_back(std::move(f)); }
    cv_.notify_all();
  }

 private:
  void loop() {
    writable_.wait();  // socket becomes writable
    for (;;) {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return done_ || !q_.empty(); });
      if (q_.empty()) return;
      auto f = q_.front(); q_.pop_front();
      lk.unlock();
      f->markCompleted(c10::IValue());  // runs the reply callbacks here
    }
  }
  std::shared_future<void> writable_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<FuturePtr> q_;
  bool done_ = false;
  std::thread th_;
};

class Batcher {
 public:
  Batcher(torch::nn::Linear head, CompletionThread& net) : head_(head), net_(net) {}

  FuturePtr run(const torch::Tensor& batch, std::vector<int64_t>& reply) {
    torch::NoGradGuard ng;
    logits_.copy_(head_->forward(batch));  // BUG(libtorch-worker-missing-clone)
    auto fut = c10::make_intrusive<c10::ivalue::Future>(c10::NoneType::get());
    auto logits = logits_;
    fut->addCallback([logits, &reply](c10::ivalue::Future&) {  // BUG(libtorch-worker-missing-clone)
      auto idx = logits.argmax(1);
      reply.assign(idx.data_ptr<int64_t>(), idx.data_ptr<int64_t>() + idx.numel());
    });
    net_.enqueue(fut);
    return fut;
  }

 private:
  torch::nn::Linear head_;
  CompletionThread& net_;
  torch::Tensor logits_ = torch::empty({2, 5});
};

}  // namespace serving

int main() {
  torch::manual_seed(0);
  std::promise<void> writable;
  serving::CompletionThread net(writable.get_future().share());
  torch::nn::Linear head(5, 5);
  { torch::NoGradGuard ng; head->weight.copy_(torch::eye(5) * 10); head->bias.zero_(); }
  serving::Batcher batcher(head, net);

  std::vector<int64_t> reply0, reply1;
  auto b0 = torch::eye(5).index({torch::indexing::Slice(0, 2)});   // classes 0, 1
  auto b1 = torch::eye(5).index({torch::indexing::Slice(3, 5)});   // classes 3, 4
  auto f0 = batcher.run(b0, reply0);
  auto f1 = batcher.run(b1, reply1);
  writable.set_value();
  f0->wait();
  f1->wait();
  std::cout << "reply0 = [" << reply0[0] << ", " << reply0[1] << "]\n";
  if (reply0[0] != 0 || reply0[1] != 1)
    std::cout << "HARM: reply of batch 0 is [" << reply0[0] << ", " << reply0[1]
              << "], the argmax of batch 1\n";
  return 0;
}
