// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Members a worker reads through `this`, written by the method that starts
// it (Note [Members reached through this]), and workers whose callable is
// kept in a local first.

#include <torch/torch.h>

#include <functional>
#include <future>
#include <mutex>
#include <thread>

void consume(const torch::Tensor &t);

class Actor {
public:
  void PositiveLambdaCapturesThis() {
    std::thread t([this] { consume(obs_); });
    obs_.fill_(1);
    t.join();
    // CHECK-NOTES: :[[@LINE-3]]:20: warning: by-reference capture 'this->obs_' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
    // CHECK-NOTES: :[[@LINE-3]]:10: note: 'fill_' writes 'obs_' in place here
  }

  void PositiveMemberFunctionOnThis() {
    std::thread t(&Actor::publish, this);
    obs_.zero_();
    t.join();
    // CHECK-NOTES: :[[@LINE-3]]:36: warning: by-reference argument 'this->obs_' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
    // CHECK-NOTES: :[[@LINE-3]]:10: note: 'zero_' writes 'obs_' in place here
  }

  void PositiveAsyncBeforeGet() {
    auto done = std::async(std::launch::async, [this] { return obs_.sum(); });
    obs_.mul_(2);
    done.get();
    // CHECK-NOTES: :[[@LINE-3]]:49: warning: by-reference capture 'this->obs_' shares its storage with worker entry point 'std::async' and the spawner writes it in place before the worker is joined
    // CHECK-NOTES: :[[@LINE-3]]:10: note: 'mul_' writes 'obs_' in place here
  }

  void NegativeJoinedBeforeTheWrite() {
    std::thread t([this] { consume(obs_); });
    t.join();
    obs_.fill_(1);
  }

  void NegativeUnderALock() {
    std::thread t([this] {
      std::lock_guard<std::mutex> lock(mutex_);
      consume(obs_);
    });
    {
      std::lock_guard<std::mutex> lock(mutex_);
      obs_.fill_(1);
    }
    t.join();
  }

  // The worker reads another member than the one written.
  void NegativeOtherMember() {
    std::thread t([this] { consume(weights_); });
    obs_.fill_(1);
    t.join();
  }

  // Rebinding the member is not an in-place write: the worker keeps the
  // tensor it read.
  void NegativeRebound() {
    std::thread t([this] { consume(obs_); });
    obs_ = torch::zeros({4});
    t.join();
  }

  void publish() { consume(obs_); }

private:
  torch::Tensor obs_ = torch::zeros({4});
  torch::Tensor weights_ = torch::ones({4});
  std::mutex mutex_;
};

// A callable kept in a local, then handed to the thread.
void PositiveStoredLambda(torch::Tensor buf) {
  auto job = [buf] { consume(buf); };
  std::thread t(job);
  buf.zero_();
  t.join();
  // CHECK-NOTES: :[[@LINE-4]]:15: warning: by-value capture 'buf' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
  // CHECK-NOTES: :[[@LINE-3]]:7: note: 'zero_' writes 'buf' in place here
  // CHECK-FIXES: auto job = [buf = buf.clone()] { consume(buf); };
}

void PositiveStoredFunction(torch::Tensor buf) {
  std::function<void()> job = [buf] { consume(buf); };
  std::thread t(job);
  buf.add_(1);
  t.join();
  // CHECK-NOTES: :[[@LINE-4]]:32: warning: by-value capture 'buf' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined
  // CHECK-NOTES: :[[@LINE-3]]:7: note: 'add_' writes 'buf' in place here
  // CHECK-FIXES: std::function<void()> job = [buf = buf.clone()] { consume(buf); };
}

// A std::function assigned again before the spawn may hold another callable.
void NegativeReassignedFunction(torch::Tensor buf, torch::Tensor other) {
  std::function<void()> job = [buf] { consume(buf); };
  job = [other] { consume(other); };
  std::thread t(job);
  buf.add_(1);
  t.join();
}

void NegativeStoredLambdaJoined(torch::Tensor buf) {
  auto job = [buf] { consume(buf); };
  std::thread t(job);
  t.join();
  buf.zero_();
}
