// CASE: a trainer asks a background checkpoint writer to save
//       model->named_parameters() every two steps; the writer batches its
//       disk writes and serialises the queued snapshots at the end of the
//       epoch, after the optimizer has stepped the same tensors further
// SOURCE: the kind of code in libtorch training loops that move
//       torch::save off the training thread (asynchronous checkpointing);
//       cf. https://discuss.pytorch.org/t/implication-of-multithreading-with-a-model-without-mutexes-in-libtorch/119347
// KIND: bug
// HARM: the checkpoint of step 2 holds the weights of step 4
#include <torch/torch.h>

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace {

using Snapshot = torch::OrderedDict<std::string, torch::Tensor>;

class CheckpointWriter {
 public:
  CheckpointWriter() : thread_([this] { loop(); }) {}
  ~CheckpointWriter() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void request(int step, Snapshot params) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.emplace_back(step, std::move(params));
  }

  // Asks the writer to write everything pending, and waits for it.
  void flush() {
    std::unique_lock<std::mutex> lock(mu_);
    flush_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !flush_; });
  }

  std::vector<std::pair<int, std::string>> written;

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return flush_ || stop_; });
      for (auto& job : pending_) {
        torch::serialize::OutputArchive archive;
        for (const auto& item : job.second) archive.write(item.key(), item.value());
        std::ostringstream bytes;
        archive.save_to(bytes);
        written.emplace_back(job.first, bytes.str());
      }
      pending_.clear();
      flush_ = false;
      cv_.notify_all();
      if (stop_) return;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool flush_ = false;
  bool stop_ = false;
  std::vector<std::pair<int, Snapshot>> pending_;
  std::thread thread_;
};

torch::Tensor load_weight(const std::string& bytes) {
  std::istringstream in(bytes);
  torch::serialize::InputArchive archive;
  archive.load_from(in);
  torch::Tensor w;
  archive.read("weight", w);
  return w;
}

}  // namespace

int main() {
  torch::manual_seed(0);
  torch::nn::Linear model(4, 2);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.5));
  CheckpointWriter writer;
  std::vector<torch::Tensor> truth;

  for (int step = 1; step <= 4; ++step) {
    auto x = torch::randn({8, 4});
    auto loss = model->forward(x).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();  // BUG(libtorch-worker-missing-clone)
    if (step % 2 == 0) {
      truth.push_back(model->weight.detach().clone());
      writer.request(step, model->named_parameters());  // BUG(libtorch-worker-missing-clone)
    }
  }
  writer.flush();

  int stale = 0;
  for (size_t i = 0; i < writer.written.size(); ++i) {
    auto w = load_weight(writer.written[i].second);
    bool ok = torch::allclose(w, truth[i]);
    std::cout << "checkpoint of step " << writer.written[i].first << (ok ? " matches" : " differs") << "\n";
    stale += !ok;
  }
  if (stale) {
    std::cout << "HARM: " << stale << " checkpoint(s) hold weights from a later optimizer step\n";
  }
  return 0;
}
