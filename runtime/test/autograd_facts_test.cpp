// The libtorch 1.13.1 behaviours behind libtorch-detached-write and
// libtorch-overlapping-inplace, called by hand against the real library:
// which tensors autograd saves, what a write through `.data()` or `detach()`
// does to them, and which overlaps an in-place operation refuses.
//
// The checks read these facts from tables that the generators in
// checks/tablegen/ measure (checks/data/aten-saved-tensors.json and
// aten-overlap.json); the MeasuredTables tests make sure that the checked-in
// tables say what the hand-written calls show, so that a generator that
// measures wrongly cannot pass its regeneration test unnoticed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <fstream>
#include <functional>
#include <string>

namespace {

using UnaryOp = std::function<torch::Tensor(const torch::Tensor &)>;
using BinaryOp =
    std::function<torch::Tensor(const torch::Tensor &, const torch::Tensor &)>;

constexpr const char *ModifiedSavedTensor =
    "one of the variables needed for gradient computation has been modified "
    "by an inplace operation";
constexpr const char *PartialOverlap =
    "some elements of the input tensor and the written-to tensor refer to a "
    "single memory location";

// A non-leaf input, so that autograd allows in-place writes into it.
torch::Tensor nonLeaf(int64_t seed) {
  torch::manual_seed(seed);
  return (torch::rand({3}, torch::kDouble) + 0.5).requires_grad_().clone();
}

// Runs backward from `y` and returns the message it throws, or "".
std::string backwardError(const torch::Tensor &y) {
  try {
    y.sum().backward();
  } catch (const c10::Error &e) {
    return e.what_without_backtrace();
  }
  return "";
}

void expectSavesResult(const char *name, const UnaryOp &op) {
  SCOPED_TRACE(name);
  torch::Tensor y = op(nonLeaf(1));
  y.add_(1);
  EXPECT_NE(backwardError(y).find(ModifiedSavedTensor), std::string::npos);

  // The input is not saved: writing it after the call leaves backward intact.
  torch::Tensor x = nonLeaf(1);
  torch::Tensor z = op(x);
  x.add_(1);
  EXPECT_EQ(backwardError(z), "");
}

TEST(AutogradFacts, ExpSigmoidAndTanhSaveTheirResult) {
  expectSavesResult("exp", [](const torch::Tensor &x) { return x.exp(); });
  expectSavesResult("sigmoid",
                    [](const torch::Tensor &x) { return x.sigmoid(); });
  expectSavesResult("tanh", [](const torch::Tensor &x) { return x.tanh(); });
}

void expectSavesBothInputs(const char *name, const BinaryOp &op) {
  SCOPED_TRACE(name);
  for (int written = 0; written < 2; ++written) {
    SCOPED_TRACE(written == 0 ? "first input written" : "second input written");
    torch::Tensor a = nonLeaf(1), b = nonLeaf(2);
    torch::Tensor y = op(a, b);
    (written == 0 ? a : b).mul_(2);
    EXPECT_NE(backwardError(y).find(ModifiedSavedTensor), std::string::npos);
  }
}

TEST(AutogradFacts, MulPowAndDivSaveTheirInputs) {
  expectSavesBothInputs("mul", [](const torch::Tensor &a,
                                  const torch::Tensor &b) { return a * b; });
  expectSavesBothInputs("pow", [](const torch::Tensor &a,
                                  const torch::Tensor &b) { return a.pow(b); });
  expectSavesBothInputs("div", [](const torch::Tensor &a,
                                  const torch::Tensor &b) { return a / b; });
}

TEST(AutogradFacts, AddSavesNeitherInput) {
  torch::Tensor a = nonLeaf(1), b = nonLeaf(2);
  torch::Tensor y = a + b;
  a.mul_(2);
  b.mul_(2);
  EXPECT_EQ(backwardError(y), "");
}

// The hazard libtorch-detached-write describes: `.data()` shares the storage
// but not the version counter, so backward cannot notice the write and
// silently computes the gradient from the new values.
TEST(AutogradFacts, WritingThroughDataCorruptsTheGradientSilently) {
  torch::manual_seed(3);
  torch::Tensor x = torch::rand({3}, torch::kDouble).requires_grad_();
  torch::Tensor original = x.detach().clone();
  torch::Tensor y = x.pow(2);
  auto version = x._version();
  x.data().add_(1);
  EXPECT_EQ(x._version(), version);
  EXPECT_EQ(backwardError(y), "");
  EXPECT_FALSE(torch::allclose(x.grad(), 2 * original));
  EXPECT_TRUE(torch::allclose(x.grad(), 2 * (original + 1)));
}

// Note [Element writes through an accessor]: an accessor and a data pointer
// do not bump the version counter either, so a write through them into a
// tensor pow saved goes unnoticed, and the gradient uses the new values.
TEST(AutogradFacts, WritingThroughAnAccessorCorruptsTheGradientSilently) {
  torch::manual_seed(3);
  torch::Tensor x = torch::rand({3}, torch::kDouble).requires_grad_();
  torch::Tensor u = x * 1.0;
  torch::Tensor original = u.detach().clone();
  torch::Tensor y = u.pow(2);
  auto version = u._version();
  auto a = u.accessor<double, 1>();
  a[0] = 5.0;
  u.data_ptr<double>()[1] += 1.0;
  EXPECT_EQ(u._version(), version);
  EXPECT_EQ(backwardError(y), "");
  torch::Tensor changed = original.clone();
  changed[0] = 5.0;
  changed[1] += 1.0;
  EXPECT_FALSE(torch::allclose(x.grad(), 2 * original));
  EXPECT_TRUE(torch::allclose(x.grad(), 2 * changed));
}

// Note [Views outside the graph]: `variable_data()` is `data()` under
// another name: it shares the storage and not the version counter, so a
// write through it goes unnoticed and backward uses the new values.
TEST(AutogradFacts, WritingThroughVariableDataCorruptsTheGradientSilently) {
  torch::manual_seed(3);
  torch::Tensor x = torch::rand({3}, torch::kDouble).requires_grad_();
  torch::Tensor u = x * 1.0;
  torch::Tensor original = u.detach().clone();
  torch::Tensor y = u.pow(2);
  auto version = u._version();
  torch::Tensor v = u.variable_data();
  EXPECT_EQ(v.data_ptr(), u.data_ptr());
  EXPECT_FALSE(v.requires_grad());
  v.add_(1.0);
  EXPECT_EQ(u._version(), version);
  EXPECT_EQ(backwardError(y), "");
  EXPECT_FALSE(torch::allclose(x.grad(), 2 * original));
  EXPECT_TRUE(torch::allclose(x.grad(), 2 * (original + 1.0)));
}

// `detach()` shares the version counter, so the same write makes backward
// throw instead.
TEST(AutogradFacts, WritingThroughDetachMakesBackwardThrow) {
  torch::manual_seed(3);
  torch::Tensor x = torch::rand({3}, torch::kDouble).requires_grad_();
  torch::Tensor y = x.pow(2);
  auto version = x._version();
  x.detach().add_(1);
  EXPECT_GT(x._version(), version);
  EXPECT_NE(backwardError(y).find(ModifiedSavedTensor), std::string::npos);
}

// A no-grad guard does not stop the version counter: a write under it into
// a result that an operation saved breaks the backward that needs it (the
// parameter-update idiom is for leaves, which saved results are not).
TEST(AutogradFacts, AWriteUnderNoGradIntoASavedResultStillThrows) {
  torch::manual_seed(4);
  torch::Tensor x = torch::rand({3}, torch::kDouble).requires_grad_();
  torch::Tensor p = x.sigmoid();
  {
    torch::NoGradGuard no_grad;
    p.mul_(0.9);
  }
  EXPECT_NE(backwardError(p.sum()).find(ModifiedSavedTensor), std::string::npos);
}

// Note [Methods that build a graph]: a method other than forward that
// assigns an operation's result to a member saves it like forward would; the
// member is no leaf, so an in-place write into it with grad on is allowed,
// and the backward from the method's result throws.
struct RecurrentImpl : torch::nn::Module {
  RecurrentImpl() : in(register_module("in", torch::nn::Linear(3, 3))) {
    h_ = torch::zeros({2, 3}, torch::kDouble);
    in->to(torch::kDouble);
  }
  torch::Tensor step(const torch::Tensor &x) {
    h_ = torch::tanh(in(x) + h_);
    return h_ * 2;
  }
  torch::Tensor &hidden() { return h_; }
  torch::nn::Linear in;
  torch::Tensor h_;
};
TORCH_MODULE(Recurrent);

TEST(AutogradFacts, AStateMemberAMethodSavedBreaksBackwardWhenReset) {
  torch::manual_seed(5);
  Recurrent policy;
  torch::Tensor out = policy->step(torch::rand({2, 3}, torch::kDouble));
  EXPECT_NO_THROW(policy->hidden().masked_fill_(
      torch::tensor({true, false}).unsqueeze(1), 0.0));
  EXPECT_NE(backwardError(out.sum()).find(ModifiedSavedTensor), std::string::npos);
  // Reset after the backward instead: nothing is needed any more.
  Recurrent fresh;
  torch::Tensor again = fresh->step(torch::rand({2, 3}, torch::kDouble));
  EXPECT_EQ(backwardError(again.sum()), "");
  fresh->hidden().masked_fill_(torch::tensor({true, false}).unsqueeze(1), 0.0);
}

// Note [Members handed out by an accessor]: a module's method returning
// `weight_.detach()` hands out the parameter's own storage and version
// counter, so a write through what it returned breaks the backward of a
// forward that saved the parameter; a method returning a clone does not.
struct CentresImpl : torch::nn::Module {
  CentresImpl() { weight_ = register_parameter("weight", torch::rand({3}, torch::kDouble)); }
  torch::Tensor centres() const { return weight_.detach(); }
  torch::Tensor snapshot() const { return weight_.detach().clone(); }
  torch::Tensor weight_;
};
TORCH_MODULE(Centres);

TEST(AutogradFacts, AnAccessorReturningDetachHandsOutTheParameter) {
  Centres head;
  torch::Tensor x = torch::rand({3}, torch::kDouble);
  torch::Tensor loss = (head->weight_.pow(2) * x).sum();
  head->snapshot().div_(2);
  torch::Tensor copy_loss = (head->weight_.pow(2) * x).sum();
  EXPECT_EQ(backwardError(copy_loss), "");
  head->centres().div_(2);
  EXPECT_NE(backwardError(loss).find(ModifiedSavedTensor), std::string::npos);
}

// Note [Saved by a function that returns it] and Note [A graph returned to
// the caller]: a save does not end at a function's return. A view of
// sigmoid's result returned in a struct, written by the caller, and a write
// inside a function whose returned graph its caller differentiates, both
// make that later backward throw; a clone taken in the function does not.
struct GatePair {
  torch::Tensor keep, write;
};

GatePair gatesOf(const torch::Tensor &x) {
  torch::Tensor s = x.sigmoid();
  return {s.narrow(0, 0, 1), s.narrow(0, 1, 2)};
}

torch::Tensor cappedGate(const torch::Tensor &x, bool clone) {
  torch::Tensor gate = x.sigmoid();
  if (clone)
    gate = gate.clone();
  gate.clamp_max_(0.9);
  return gate * 2;
}

TEST(AutogradFacts, SavesOutliveTheFunctionThatMadeThem) {
  GatePair gates = gatesOf(nonLeaf(4));
  gates.keep.clamp_max_(0.5);
  EXPECT_NE(backwardError(gates.keep * gates.write.sum()).find(ModifiedSavedTensor),
            std::string::npos);

  EXPECT_NE(backwardError(cappedGate(nonLeaf(5), false)).find(ModifiedSavedTensor),
            std::string::npos);
  EXPECT_EQ(backwardError(cappedGate(nonLeaf(5), true)), "");
}

// Note [A library module saves its input]: Linear's weight requires grad,
// so its input is saved for the weight's gradient whatever the input is.
TEST(AutogradFacts, ALinearSavesItsInputForTheWeightsGradient) {
  torch::manual_seed(6);
  torch::nn::Linear critic(4, 1);
  torch::Tensor obs = torch::rand({3, 4}, torch::kFloat);
  torch::Tensor value = critic(obs).sum();
  obs.mul_(2);
  EXPECT_NE(backwardError(value).find(ModifiedSavedTensor), std::string::npos);
}

// Note [Forwards run only without grad]: under InferenceMode a module's
// forward records no graph, so a write through a view of a ReLU output
// breaks nothing; with grad it breaks the backward.
TEST(AutogradFacts, UnderInferenceModeAForwardRecordsNoGraph) {
  torch::manual_seed(8);
  torch::nn::Linear fc(4, 4);
  torch::Tensor x = torch::rand({2, 4});
  {
    c10::InferenceMode guard;
    torch::Tensor branch = torch::relu(fc(x));
    branch.view({-1}).mul_(0.5);
    EXPECT_FALSE(branch.requires_grad());
  }
  torch::Tensor branch = torch::relu(fc(x));
  branch.view({-1}).mul_(0.5);
  EXPECT_NE(backwardError(branch.sum()).find(ModifiedSavedTensor),
            std::string::npos);
}

struct SavingMatmul : torch::autograd::Function<SavingMatmul> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor x, torch::Tensor w) {
    ctx->save_for_backward({x, w});
    return x.mm(w);
  }
  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    return {grads[0].mm(saved[1].t()), saved[0].t().mm(grads[0])};
  }
};

// Note [Custom autograd functions]: what save_for_backward names is checked
// like any saved tensor: an in-place write throws, one through data() goes
// unnoticed and changes the gradient.
TEST(AutogradFacts, ACustomFunctionChecksWhatItSaved) {
  torch::manual_seed(7);
  torch::Tensor x = torch::rand({2, 3}, torch::kDouble);
  torch::Tensor w = torch::rand({3, 2}, torch::kDouble).requires_grad_();
  torch::Tensor h = x.clone().requires_grad_();
  torch::Tensor y = SavingMatmul::apply(h * 1, w).sum();
  w.detach().mul_(2);
  EXPECT_NE(backwardError(y).find(ModifiedSavedTensor), std::string::npos);

  torch::Tensor w2 = torch::rand({3, 2}, torch::kDouble).requires_grad_();
  torch::Tensor z = SavingMatmul::apply(h, w2).sum();
  torch::Tensor original = w2.detach().clone();
  w2.data().mul_(2);
  EXPECT_EQ(backwardError(z), "");
  EXPECT_TRUE(torch::allclose(h.grad(), torch::ones({2, 2}, torch::kDouble).mm(
                                            (2 * original).t())));
}

// Note [Parameters set from a flat vector]: each tensor of the list is set
// from its own slice, so one listed twice keeps the second slice.
TEST(AutogradFacts, VectorToParametersSetsADuplicateTwice) {
  torch::Tensor w = torch::zeros({2}, torch::kDouble);
  std::vector<torch::Tensor> params = {w, w};
  torch::Tensor theta = torch::tensor({1.0, 2.0, 3.0, 4.0}, torch::kDouble);
  torch::NoGradGuard no_grad;
  torch::nn::utils::vector_to_parameters(theta, params);
  EXPECT_TRUE(torch::equal(w, torch::tensor({3.0, 4.0}, torch::kDouble)));
}

// Note [Members saved through a local view]: a row of a parameter kept in a
// local and saved by pow() shares the parameter's version counter, so a
// write of the parameter through detach() before the backward throws.
TEST(AutogradFacts, ASavedRowOfAParameterSeesWritesThroughDetach) {
  torch::Tensor weight = torch::rand({3, 2}, torch::kDouble).requires_grad_();
  torch::Tensor row = weight[0];
  torch::Tensor loss = row.pow(2).sum();
  weight.detach().mul_(0.5);
  EXPECT_THROW(loss.backward(), c10::Error);

  torch::Tensor copy = weight[0].clone();
  torch::Tensor fine = copy.pow(2).sum();
  weight.detach().mul_(0.5);
  EXPECT_NO_THROW(fine.backward());
}

std::string overlapError(const std::function<void()> &call) {
  try {
    call();
  } catch (const c10::Error &e) {
    return e.what_without_backtrace();
  }
  return "";
}

// index_put_ refuses even an exact alias between `self` and `values`.
TEST(OverlapFacts, IndexPutRefusesValuesThatAreSelf) {
  torch::Tensor x = torch::rand({3}, torch::kDouble);
  torch::Tensor index = torch::arange(3);
  EXPECT_NE(
      overlapError([&] { x.index_put_({index}, x); }).find(PartialOverlap),
      std::string::npos);
  EXPECT_EQ(overlapError([&] { x.index_put_({index}, x.clone()); }), "");
}

// TensorIterator accepts an exact alias and refuses a partial overlap.
TEST(OverlapFacts, AddAcceptsItselfAndRefusesAShiftedWindow) {
  torch::Tensor x = torch::ones({3}, torch::kDouble);
  EXPECT_EQ(overlapError([&] { x.add_(x); }), "");
  EXPECT_TRUE(torch::equal(x, torch::full({3}, 2.0, torch::kDouble)));

  torch::Tensor buffer = torch::arange(4, torch::kDouble);
  EXPECT_NE(overlapError([&] {
              buffer.narrow(0, 1, 3).add_(buffer.narrow(0, 0, 3));
            }).find(PartialOverlap),
            std::string::npos);
}

// matrix_power_out(s, s, n) is right for n = 1, a copy, and wrong for n = 2:
// it multiplies s by the matrix it is overwriting, and throws nothing (Note
// [Counts other than one]).
TEST(OverlapFacts, MatrixPowerOutIntoItsInputIsWrongFromTheSquare) {
  torch::Tensor s = torch::rand({4, 4}, torch::kDouble).add_(0.5);
  torch::Tensor once = s.clone();
  EXPECT_EQ(overlapError([&] { torch::matrix_power_out(once, once, 1); }), "");
  EXPECT_TRUE(torch::allclose(once, s));

  torch::Tensor squared = s.clone();
  EXPECT_EQ(overlapError([&] { torch::matrix_power_out(squared, squared, 2); }),
            "");
  EXPECT_FALSE(torch::allclose(squared, s.mm(s)));
}

// The checked-in tables, for the MeasuredTables tests.
nlohmann::json readTable(const std::string &file) {
  std::ifstream in(std::string(TORCHALIAS_FACT_TABLES_DIR) + "/" + file);
  if (!in)
    return nullptr;
  return nlohmann::json::parse(in, nullptr, false);
}

nlohmann::json entryOf(const nlohmann::json &table, const std::string &name,
                       const std::string &overload) {
  for (const nlohmann::json &entry : table["operators"])
    if (entry["name"] == name && entry["overload"] == overload)
      return entry;
  return nullptr;
}

TEST(MeasuredTables, SavedTensorsAgreeWithTheHandWrittenCalls) {
  nlohmann::json table = readTable("aten-saved-tensors.json");
  ASSERT_TRUE(table.is_object()) << "aten-saved-tensors.json is missing";
  using Names = std::vector<std::string>;
  using Indices = std::vector<int>;
  for (const char *name : {"exp", "sigmoid", "tanh"}) {
    nlohmann::json entry = entryOf(table, name, "");
    ASSERT_TRUE(entry.is_object()) << name;
    EXPECT_EQ(entry["saves_result"].get<Indices>(), Indices{0}) << name;
    EXPECT_EQ(entry["saves_inputs"].get<Names>(), Names{}) << name;
  }
  for (const auto &[name, overload, inputs] :
       std::vector<std::tuple<std::string, std::string, Names>>{
           {"mul", "Tensor", {"self", "other"}},
           {"div", "Tensor", {"self", "other"}},
           {"pow", "Tensor_Tensor", {"self", "exponent"}},
           {"add", "Tensor", {}}}) {
    nlohmann::json entry = entryOf(table, name, overload);
    ASSERT_TRUE(entry.is_object()) << name;
    EXPECT_EQ(entry["saves_inputs"].get<Names>(), inputs) << name;
  }
}

TEST(MeasuredTables, OverlapsAgreeWithTheHandWrittenCalls) {
  nlohmann::json table = readTable("aten-overlap.json");
  ASSERT_TRUE(table.is_object()) << "aten-overlap.json is missing";
  nlohmann::json indexPut = entryOf(table, "index_put_", "");
  ASSERT_TRUE(indexPut.is_object());
  EXPECT_EQ(indexPut["inputs"]["values"]["exact_alias"], "rejects");
  nlohmann::json add = entryOf(table, "add_", "Tensor");
  ASSERT_TRUE(add.is_object());
  EXPECT_EQ(add["inputs"]["other"]["exact_alias"], "accepts");
  EXPECT_EQ(add["inputs"]["other"]["partial_overlap"], "rejects");
  nlohmann::json matrixPower = entryOf(table, "matrix_power", "out");
  ASSERT_TRUE(matrixPower.is_object());
  EXPECT_EQ(matrixPower["inputs"]["self"]["exact_alias"], "corrupts");
}

} // namespace
