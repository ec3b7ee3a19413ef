// RUN: %check_clang_tidy %s libtorch-inplace-on-view %t -- -- %mock_torch
// In-place writes through a view of a tensor an operation saved for
// backward, before the backward that needs it (Note [In-place writes into
// saved tensors]). A write into the saved tensor itself, or through
// `.data()` or `detach()`, is libtorch-detached-write's.

#include <torch/torch.h>

#include <functional>
#include <map>
#include <string>

void PositiveNarrowOfSigmoidOutput() {
  auto y = torch::sigmoid(torch::rand({3}, torch::requires_grad()));
  y.narrow(0, 0, 1).zero_();
  // CHECK-NOTES: :[[@LINE-1]]:21: warning: 'zero_' writes in place into local 'y', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-2]]:5: note: view of local 'y' created here by 'narrow'
  // CHECK-NOTES: :[[@LINE-4]]:12: note: 'sigmoid' saves its result for backward here
  y.sum().backward();
}

// Through an index view kept in a variable.
void PositiveIndexViewOfExp(const torch::Tensor &scores,
                            const torch::Tensor &mask) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto logp = torch::exp(scores.matmul(w));
  auto tail = logp.index({torch::indexing::Slice(), torch::indexing::Slice(2, torch::indexing::None)});
  tail.masked_fill_(mask, -1e4);
  // CHECK-NOTES: :[[@LINE-1]]:8: warning: 'masked_fill_' writes in place into local 'logp', which 'exp' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE-3]]:20: note: view of local 'logp' created here by 'index'
  // CHECK-NOTES: :[[@LINE-5]]:15: note: 'exp' saves its result for backward here
  logp.sum().backward();
}

// A helper writes the view the caller made.
static void floorGate(torch::Tensor gate, double floor) { gate.clamp_(floor, 1.0); }
// CHECK-NOTES: :[[@LINE-1]]:64: warning: 'clamp_' writes in place into local 'gates', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-inplace-on-view]
// CHECK-NOTES: :[[@LINE+10]]:3: note: 'floorGate' is called here
// CHECK-NOTES: :[[@LINE+8]]:23: note: view of local 'gates' created here by 'narrow'
// CHECK-NOTES: :[[@LINE-4]]:64: note: 'floorGate' writes its parameter 'gate' in place here
// CHECK-NOTES: :[[@LINE+8]]:3: note: the backward that needs it runs here
// CHECK-NOTES: :[[@LINE+4]]:16: note: 'sigmoid' saves its result for backward here

void PositiveHelperWritesViewOfSavedResult(const torch::Tensor &input) {
  auto w = torch::rand({4, 8}, torch::requires_grad());
  auto gates = torch::sigmoid(input.matmul(w));
  auto forget = gates.narrow(1, 0, 2);
  floorGate(forget, 0.3);
  (forget * 2).sum().backward();
}

// A function object whose caller differentiates the graph it returns.
struct InnerProductDecoder {
  torch::Tensor operator()(const torch::Tensor &z) const {
    auto adj = torch::sigmoid(z.matmul(z.t()));
    adj.diagonal().zero_();
    // CHECK-NOTES: :[[@LINE-1]]:20: warning: 'zero_' writes in place into local 'adj', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-inplace-on-view]
    // CHECK-NOTES: :[[@LINE-2]]:9: note: view of local 'adj' created here by 'diagonal'
    // CHECK-NOTES: :[[@LINE-4]]:16: note: 'sigmoid' saves its result for backward here
    // CHECK-NOTES: :[[@LINE+3]]:5: note: the graph is returned here
    // CHECK-NOTES: :[[@LINE+9]]:3: note: 'decode' is called here
    // CHECK-NOTES: :[[@LINE+8]]:3: note: the backward that needs it runs here
    return adj;
  }
};

void PositiveGraphReturnedByFunctionObject(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  const InnerProductDecoder decode;
  decode(x.matmul(w)).sum().backward();
}

// The output of an operation that saves only its inputs.
void NegativeOutputNotSaved(const torch::Tensor &x) {
  auto w = torch::rand({4, 4}, torch::requires_grad());
  auto h = x.matmul(w) + 1;
  h.narrow(0, 0, 1).zero_();
  h.sum().backward();
}

// A copy of the output is written.
void NegativeViewOfAClone() {
  auto y = torch::sigmoid(torch::rand({3}, torch::requires_grad()));
  auto z = y.clone();
  z.narrow(0, 0, 1).zero_();
  (y + z).sum().backward();
}

// The write comes after the backward.
void NegativeAfterBackward() {
  auto y = torch::sigmoid(torch::rand({3}, torch::requires_grad()));
  y.sum().backward();
  y.narrow(0, 0, 1).zero_();
}

// Post-ops in a registry write a view of the output they are given.
std::map<std::string, std::function<void(torch::Tensor &)>> PostOps;
void registerPostOps() {
  PostOps["cap"] = [](torch::Tensor &t) { t.view({-1}).clamp_(0, 6); };
  // CHECK-NOTES: :[[@LINE-1]]:56: warning: 'clamp_' writes in place into local 'y', which 'sigmoid' saved for backward; backward throws 'one of the variables needed for gradient computation has been modified by an inplace operation' [libtorch-inplace-on-view]
  // CHECK-NOTES: :[[@LINE+10]]:5: note: 'PostOps' is called here
  // CHECK-NOTES: :[[@LINE-3]]:56: note: 'PostOps' writes its parameter 't' in place here
  // CHECK-NOTES: :[[@LINE+9]]:3: note: the backward that needs it runs here
  // CHECK-NOTES: :[[@LINE+5]]:12: note: 'sigmoid' saves its result for backward here
}

void PositiveRegistryWritesViewOfSavedOutput(const torch::Tensor &x) {
  auto w = torch::randn({4}, torch::requires_grad());
  auto y = torch::sigmoid(x * w);
  for (auto &op : PostOps)
    op.second(y);
  y.sum().backward();
}
