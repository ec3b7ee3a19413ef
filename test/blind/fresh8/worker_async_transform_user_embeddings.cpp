// CASE: a recommendation server fans ranking requests out with std::async
//       over a free function, built by std::transform over its sessions, and
//       then folds the click stream into each session's embedding in place
//       while the rankings are still in flight
// SOURCE: the kind of code in C++ online recommenders on libtorch (two-tower
//       retrieval with an online user vector updated by an EMA of clicked
//       items)
// KIND: bug
// HARM: the rankings come back for the post-click user vectors instead of the
//       ones the page was requested with
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <iterator>
#include <vector>

namespace reco {

torch::Tensor rank_catalogue(torch::Tensor user, torch::Tensor items,
                             std::shared_future<void> sealed) {
  sealed.wait();  // the ranking pool starts once the request batch is sealed
  return std::get<1>(items.mv(user).topk(5));
}

class Session {
 public:
  Session(int64_t id, torch::Tensor embedding) : id_(id), embedding_(std::move(embedding)) {}

  int64_t id() const { return id_; }
  const torch::Tensor& embedding() const { return embedding_; }

  void absorb_click(const torch::Tensor& item, double rate) {
    embedding_.mul_(1.0 - rate).add_(item, rate);  // BUG(libtorch-worker-missing-clone)
  }

 private:
  int64_t id_;
  torch::Tensor embedding_;
};

}  // namespace reco

int main() {
  torch::manual_seed(7);
  const auto items = torch::randn({200, 16});
  std::vector<reco::Session> sessions;
  for (int64_t id = 0; id < 4; ++id) sessions.emplace_back(id, torch::randn({16}));

  // What each page was requested for (for the check below).
  std::vector<torch::Tensor> requested;
  for (const auto& s : sessions) requested.push_back(std::get<1>(items.mv(s.embedding()).topk(5)));

  std::promise<void> seal;
  const auto sealed = seal.get_future().share();
  std::vector<std::future<torch::Tensor>> pending;
  std::transform(sessions.begin(), sessions.end(), std::back_inserter(pending),
                 [&](const reco::Session& s) {
                   return std::async(std::launch::async, reco::rank_catalogue, s.embedding(),  // BUG(libtorch-worker-missing-clone)
                                     items, sealed);
                 });

  // Clicks that arrived while the ranking batch was being assembled.
  const auto clicked = torch::randint(0, 200, {4}, torch::kLong);
  for (auto& s : sessions) s.absorb_click(items[clicked[s.id()].item<int64_t>()], 0.9);  // BUG(libtorch-worker-missing-clone)
  seal.set_value();

  int mismatched = 0;
  for (size_t i = 0; i < pending.size(); ++i) {
    const auto got = pending[i].get();
    if (!torch::equal(got, requested[i])) ++mismatched;
  }
  std::printf("%d of %zu rankings differ from the request\n", mismatched, pending.size());
  if (mismatched > 0) {
    std::printf("HARM: %d rankings were computed from user vectors the click stream had "
                "already rewritten\n",
                mismatched);
  }
  return 0;
}
