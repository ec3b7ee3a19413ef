// CASE: a pipeline-parallel stage copies each micro-batch's activations into
//       one preallocated send buffer and posts a non-blocking isend per
//       micro-batch, waiting on all the Work handles only at the end of the
//       schedule; the transport reads the buffer when it makes progress
// SOURCE: modelled on c10d ProcessGroup::send / Work::wait usage in pipeline
//         schedules (the isend contract: the buffer must not be modified until
//         wait() returns), with a loopback group whose progress happens in wait()
// KIND: bug
// HARM: the next stage receives micro-batch 1's activations in place of
//       micro-batch 0's
#include <torch/torch.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace dist {

class LoopbackGroup;
class Work {
 public:
  Work(LoopbackGroup* g, uint64_t seq) : group_(g), seq_(seq) {}
  void wait();
 private:
  LoopbackGroup* group_;
  uint64_t seq_;
};

class LoopbackGroup {
 public:
  LoopbackGroup() : comm_([this] { progress_loop(); }) {}
  ~LoopbackGroup() {
    { std::lock_guard<std::mutex> lk(mu_); stop_ = true; }
    cv_.notify_all();
    comm_.join();
  }
  std::shared_ptr<Work> isend(const torch::Tensor& buf, int dst) {
    std::lock_guard<std::mutex> lk(mu_);
    pending_.push_back({buf, dst});
    return std::make_shared<Work>(this, ++posted_);
  }
  void progress_until(uint64_t seq) {
    std::unique_lock<std::mutex> lk(mu_);
    target_ = std::max(target_, seq);
    cv_.notify_all();
    cv_.wait(lk, [&] { return completed_ >= seq; });
  }
  std::vector<torch::Tensor> inbox(int rank) { std::lock_guard<std::mutex> lk(mu_); return inbox_[rank]; }

 private:
  struct Msg { torch::Tensor buf; int dst; };
  void progress_loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      cv_.wait(lk, [this] { return stop_ || completed_ < target_; });
      if (completed_ >= target_) return;
      Msg msg = pending_.front();
      pending_.pop_front();
      inbox_[msg.dst].push_back(msg.buf.clone());  // the bytes go on the wire now
      ++completed_;
      cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Msg> pending_;
  std::map<int, std::vector<torch::Tensor>> inbox_;
  uint64_t posted_ = 0, target_ = 0, completed_ = 0;
  bool stop_ = false;
  std::thread comm_;
};

void Work::wait() { group_->progress_until(seq_); }

}  // namespace dist

int main() {
  torch::manual_seed(5);
  torch::NoGradGuard no_grad;
  dist::LoopbackGroup pg;
  torch::nn::Sequential stage(torch::nn::Linear(6, 8), torch::nn::GELU());
  const auto microbatches = torch::randn({2, 4, 6}).unbind(0);

  auto send_buf = torch::empty({4, 8});
  std::vector<std::shared_ptr<dist::Work>> inflight;
  std::vector<torch::Tensor> sent;  // what each micro-batch produced, for the check
  for (const auto& mb : microbatches) {
    auto act = stage->forward(mb);
    sent.push_back(act);
    send_buf.copy_(act);  // BUG(libtorch-worker-missing-clone)
    inflight.push_back(pg.isend(send_buf, /*dst=*/1));  // BUG(libtorch-worker-missing-clone)
  }
  for (auto& work : inflight) work->wait();

  const auto received = pg.inbox(1);
  const bool mb0_ok = received.at(0).equal(sent[0]);
  std::printf("received %zu messages; micro-batch 0 intact: %s\n", received.size(), mb0_ok ? "yes" : "no");
  if (!mb0_ok && received.at(0).equal(sent[1]))
    std::printf("HARM: the next stage received micro-batch 1's activations as micro-batch 0\n");
  return 0;
}
