// RUN: %check_clang_tidy %s libtorch-worker-missing-clone %t -- -- %mock_torch
// Objects of a class with an operator() handed to a worker as its callable
// (Note [Function objects as callables]).

#include <torch/torch.h>

#include <future>
#include <thread>

double score(const torch::Tensor &w, const torch::Tensor &x);

// An aggregate built in the call.
struct Eval {
  torch::Tensor w, x;
  double operator()() const { return score(w, x); }
};

void PositiveAggregateTemporary(torch::Tensor weights, torch::Tensor x) {
  auto loss = std::async(std::launch::async, Eval{weights, x});
  // CHECK-NOTES: :[[@LINE-1]]:51: warning: argument 'weights' shares its storage with worker entry point 'std::async' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:11: note: 'sub_' writes 'weights' in place here
  weights.sub_(0.1);
  loss.get();
}

// A class with a constructor, built from a module's parameters, and the
// module updated by a hand-written step.
class Probe {
public:
  Probe(torch::Tensor weight, torch::Tensor bias) : weight_(weight), bias_(bias) {}
  void operator()() const { score(weight_, bias_); }

private:
  torch::Tensor weight_, bias_;
};

void PositiveBuiltFromModuleParameters(torch::nn::Linear model) {
  std::thread probe(Probe(model->weight, model->bias));
  // CHECK-NOTES: :[[@LINE-1]]:27: warning: argument 'model->weight' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+4]]:7: note: 'sub_' updates the parameters of 'model' in place here
  // CHECK-NOTES: :[[@LINE-3]]:42: warning: argument 'model->bias' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+2]]:7: note: 'sub_' updates the parameters of 'model' in place here
  for (auto &p : model->parameters())
    p.sub_(p.grad());
  probe.join();
}

// The arguments after the object go to its operator().
struct Normalise {
  void operator()(torch::Tensor t) const { score(t, t); }
};

void PositiveArgumentsOfTheCall(torch::Tensor batch) {
  std::thread worker(Normalise{}, batch);
  // CHECK-NOTES: :[[@LINE-1]]:35: warning: argument 'batch' shares its storage with worker entry point 'std::thread' and the spawner writes it in place before the worker is joined [libtorch-worker-missing-clone]
  // CHECK-NOTES: :[[@LINE+1]]:9: note: 'mul_' writes 'batch' in place here
  batch.mul_(2.0);
  worker.join();
}

void NegativeClonedParts(torch::Tensor w, torch::Tensor x) {
  auto loss = std::async(std::launch::async, Eval{w.clone(), x});
  w.sub_(0.1);
  loss.get();
}

void NegativeWaitedBeforeTheWrite(torch::Tensor w, torch::Tensor x) {
  auto loss = std::async(std::launch::async, Eval{w, x});
  double value = loss.get();
  w.sub_(value);
}

struct Counter {
  int n;
  void operator()() const {}
};

void NegativeNoTensors(torch::Tensor w) {
  std::thread t(Counter{3});
  w.sub_(0.1);
  t.join();
}

// The fix-its copy what the object is built from.
// CHECK-FIXES: auto loss = std::async(std::launch::async, Eval{weights.clone(), x});
// CHECK-FIXES: std::thread probe(Probe(model->weight.clone(), model->bias.clone()));
// CHECK-FIXES: std::thread worker(Normalise{}, batch.clone());
