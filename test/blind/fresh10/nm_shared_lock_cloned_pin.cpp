// CASE: a scoring session pins the model version it starts with by taking a
//       snapshot under a std::shared_mutex reader lock; the snapshot clones the
//       weights inside the lock, so the trainer's in-place update under the
//       writer lock does not reach the session
// SOURCE: the kind of online-learning recommender service built on the C++
//         frontend (a trainer thread and serving sessions behind a
//         reader/writer lock)
// KIND: near-miss
// WHY-OK: pin() returns a copy of the values taken while readers exclude the
//         writer; the later add_ writes only the store's own tensor
#include <torch/torch.h>

#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <utility>

namespace serving {

class ModelStore {
 public:
  explicit ModelStore(torch::Tensor w) : weight_(std::move(w)) {}
  std::pair<torch::Tensor, int64_t> pin() const {
    std::shared_lock<std::shared_mutex> lk(mu_);
    return {weight_.clone(), version_};
  }
  void apply_update(const torch::Tensor& delta) {
    std::unique_lock<std::shared_mutex> lk(mu_);
    weight_.add_(delta);
    ++version_;
  }

 private:
  mutable std::shared_mutex mu_;
  torch::Tensor weight_;
  int64_t version_ = 0;
};

struct Reply { torch::Tensor scores; int64_t version; };

class Session {
 public:
  explicit Session(const ModelStore& store) : worker_([this, &store] { serve(store); }) {}
  ~Session() { worker_.join(); }
  std::future<void> ready() { return ready_.get_future(); }
  std::future<Reply> score(torch::Tensor user) {
    std::lock_guard<std::mutex> lk(mu_);
    request_ = std::move(user);
    cv_.notify_one();
    return reply_.get_future();
  }

 private:
  void serve(const ModelStore& store) {
    auto [w, version] = store.pin();
    ready_.set_value();
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [this] { return request_.has_value(); });
    reply_.set_value(Reply{request_->matmul(w), version});
  }
  std::promise<void> ready_;
  std::promise<Reply> reply_;
  std::optional<torch::Tensor> request_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread worker_;
};

}  // namespace serving

int main() {
  torch::manual_seed(11);
  torch::NoGradGuard no_grad;
  serving::ModelStore store(torch::randn({16, 5}));
  const auto v0 = store.pin().first;  // kept to check the reply
  auto user = torch::randn({1, 16});

  serving::Session session(store);
  session.ready().get();
  store.apply_update(torch::full({16, 5}, 0.25));  // trainer publishes version 1
  auto reply = session.score(user).get();

  const auto expected = user.matmul(v0);
  const double err = (reply.scores - expected).abs().max().item<double>();
  std::printf("reply tagged version %lld, max deviation from version-0 scores %.3f\n",
              static_cast<long long>(reply.version), err);
  if (reply.version != 0 || err > 1e-6)
    std::printf("HARM: a reply tagged version %lld differs from the version-0 scores by %.3f\n",
                static_cast<long long>(reply.version), err);
  return 0;
}
