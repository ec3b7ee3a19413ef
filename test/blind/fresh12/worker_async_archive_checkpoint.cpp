// CASE: an asynchronous checkpointer fills a torch::serialize::OutputArchive
//       with the model's named_parameters() on the training thread and gives
//       the archive to a saver thread; the trainer runs the next opt.step()
//       before the saver gets to save_to()
// SOURCE: the kind of code in C++ trainers that overlap checkpoint I/O with
//         training ("async checkpoint in libtorch" threads on
//         discuss.pytorch.org); OutputArchive::write keeps the tensor handle
// KIND: bug
// HARM: the checkpoint written for step 1 holds the weights of step 2
#include <torch/torch.h>

#include <condition_variable>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

namespace ckpt {

class Baton {
 public:
  void pass() {
    std::lock_guard<std::mutex> lock(m_);
    passed_ = true;
    cv_.notify_all();
  }
  void await() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return passed_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool passed_ = false;
};

using ArchivePtr = std::shared_ptr<torch::serialize::OutputArchive>;

ArchivePtr collect(const torch::nn::Module& model) {
  auto archive = std::make_shared<torch::serialize::OutputArchive>();
  for (const auto& item : model.named_parameters())
    archive->write(item.key(), item.value());  // BUG(libtorch-worker-missing-clone)
  return archive;
}

class AsyncSaver {
 public:
  // `io_free` stands for the disk queue: the blob is written when it opens.
  void submit(ArchivePtr archive, Baton* io_free) {
    worker_ = std::thread([this, archive, io_free] {  // BUG(libtorch-worker-missing-clone)
      io_free->await();
      std::ostringstream out;
      archive->save_to(out);
      blob_ = out.str();
    });
  }
  std::string finish() {
    worker_.join();
    return blob_;
  }

 private:
  std::thread worker_;
  std::string blob_;
};

}  // namespace ckpt

int main() {
  torch::manual_seed(0);
  torch::nn::Linear net(6, 3);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.5));
  auto x = torch::randn({16, 6});
  auto y = torch::randn({16, 3});

  auto train_step = [&] {
    opt.zero_grad();
    torch::mse_loss(net(x), y).backward();
    opt.step();  // BUG(libtorch-worker-missing-clone)
  };

  ckpt::AsyncSaver saver;
  ckpt::Baton io_free;

  train_step();                                     // step 1
  auto expected = net->weight.detach().clone();     // what step 1's file must hold
  saver.submit(ckpt::collect(*net), &io_free);      // BUG(libtorch-worker-missing-clone)
  train_step();                                     // BUG(libtorch-worker-missing-clone)
  io_free.pass();
  std::string blob = saver.finish();

  std::istringstream in(blob);
  torch::serialize::InputArchive loaded;
  loaded.load_from(in);
  torch::Tensor saved_w;
  loaded.read("weight", saved_w);

  double drift = (saved_w - expected).abs().max().item<double>();
  std::cout << "checkpoint weight drift from step 1: " << drift << "\n";
  if (drift > 1e-6)
    std::cout << "HARM: the step-1 checkpoint holds later weights (max diff " << drift << ")\n";
  return 0;
}
