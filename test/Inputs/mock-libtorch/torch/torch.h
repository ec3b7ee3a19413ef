// Mock of <torch/torch.h> for the lit tests; see ATen/ATen.h for the rules.
#pragma once

#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace torch {
using namespace at; // as torch/types.h does
using at::Tensor;
namespace indexing = at::indexing;
namespace autograd {
using Variable = at::Tensor;
using variable_list = std::vector<Variable>;
void backward(const variable_list &tensors,
              const variable_list &grad_tensors = {},
              c10::optional<bool> retain_graph = c10::nullopt,
              bool create_graph = false, const variable_list &inputs = {});
variable_list grad(const variable_list &outputs, const variable_list &inputs,
                   const variable_list &grad_outputs = {},
                   c10::optional<bool> retain_graph = c10::nullopt,
                   bool create_graph = false, bool allow_unused = false);
// torch/csrc/autograd/custom_function.h.
struct AutogradContext {
  void save_for_backward(variable_list to_save);
  variable_list get_saved_variables() const;
};
template <class T> struct Function {
  template <typename... Args> static Variable apply(Args &&...args);
};
} // namespace autograd
// torch:: factories are distinct functions that set up autograd.
Tensor empty(at::IntArrayRef size, at::TensorOptions options = {});
Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {});
Tensor ones(at::IntArrayRef size, at::TensorOptions options = {});
Tensor rand(at::IntArrayRef size, at::TensorOptions options = {});
Tensor randn(at::IntArrayRef size, at::TensorOptions options = {});
Tensor tensor(std::initializer_list<float> values);
Tensor from_blob(void *data, at::IntArrayRef sizes,
                 const at::TensorOptions &options = {});
constexpr auto kFloat = at::kFloat;
constexpr auto kByte = at::kByte;

// c10/core/GradMode.h, c10/core/InferenceMode.h, torch/utils.h.
struct AutoGradMode { AutoGradMode(bool enabled); ~AutoGradMode(); };
struct NoGradGuard : AutoGradMode { NoGradGuard(); };
struct InferenceMode { InferenceMode(bool enabled = true); ~InferenceMode(); };

namespace nn {
class Module;
template <typename Contained> class ModuleHolder;
} // namespace nn
// torch/ordered_dict.h: what named_parameters() returns.
template <typename Key, typename Value> class OrderedDict {
public:
  class Item {
  public:
    Key &key();
    const Key &key() const;
    Value &value();
    const Value &value() const;
  };
  Item *begin();
  const Item *begin() const;
  Item *end();
  const Item *end() const;
  size_t size() const noexcept;
  Value &operator[](const Key &key);
  std::vector<Value> values() const;
  std::vector<Key> keys() const;
};
namespace nn {
class Module : public std::enable_shared_from_this<Module> {
public:
  using ModuleApplyFunction = std::function<void(Module &)>;
  using ConstModuleApplyFunction = std::function<void(const Module &)>;
  using NamedModuleApplyFunction =
      std::function<void(const std::string &, Module &)>;
  using ConstNamedModuleApplyFunction =
      std::function<void(const std::string &, const Module &)>;
  using ModulePointerApplyFunction =
      std::function<void(const std::shared_ptr<Module> &)>;
  Module();
  explicit Module(std::string name);
  virtual ~Module() = default;
  virtual std::shared_ptr<Module>
  clone(const c10::optional<c10::Device> &device = c10::nullopt) const;
  std::vector<Tensor> parameters(bool recurse = true) const;
  OrderedDict<std::string, Tensor> named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true) const;
  OrderedDict<std::string, std::shared_ptr<Module>>
  named_modules(const std::string &name_prefix = std::string(),
                bool include_self = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  // Calls the function on this module, then on every submodule, recursing.
  void apply(const ModuleApplyFunction &function);
  void apply(const ConstModuleApplyFunction &function) const;
  void apply(const NamedModuleApplyFunction &function,
             const std::string &name_prefix = std::string());
  void apply(const ConstNamedModuleApplyFunction &function,
             const std::string &name_prefix = std::string()) const;
  void apply(const ModulePointerApplyFunction &function) const;
  Tensor &register_parameter(std::string name, Tensor tensor,
                             bool requires_grad = true);
  Tensor &register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              std::shared_ptr<ModuleType> module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType>
  register_module(std::string name, ModuleHolder<ModuleType> module_holder);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> replace_module(const std::string &name,
                                             std::shared_ptr<ModuleType> module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType>
  replace_module(const std::string &name, ModuleHolder<ModuleType> module_holder);
  void train(bool on = true);
  void eval();
  void zero_grad(bool set_to_none = false);
  template <typename ModuleType>
  typename ModuleType::ContainedType *as() noexcept;
};
template <typename Derived> class Cloneable : public Module {
public:
  using Module::Module;
  virtual void reset() = 0;
  std::shared_ptr<Module>
  clone(const c10::optional<c10::Device> &device = c10::nullopt) const override;
};
template <typename Contained> class ModuleHolder {
protected:
  std::shared_ptr<Contained> impl_;

public:
  using ContainedType = Contained;
  ModuleHolder();
  /* implicit */ ModuleHolder(std::nullptr_t);
  template <typename Head, typename... Tail>
  explicit ModuleHolder(Head &&head, Tail &&...tail);
  /* implicit */ ModuleHolder(std::shared_ptr<Contained> module);
  explicit operator bool() const noexcept;
  Contained *operator->();
  const Contained *operator->() const;
  Contained &operator*();
  const Contained &operator*() const;
  const std::shared_ptr<Contained> &ptr() const;
  // torch/nn/pimpl.h: calls the module's forward.
  template <typename... Args, typename Impl = Contained>
  auto operator()(Args &&...args)
      -> decltype(std::declval<Impl &>().forward(std::forward<Args>(args)...));
  // torch/nn/pimpl.h: the module's operator[].
  template <typename Arg> decltype(auto) operator[](Arg &&arg) {
    return (*impl_)[std::forward<Arg>(arg)];
  }
  Contained *get();
  const Contained *get() const;
  bool is_empty() const noexcept;
};
#define TORCH_MODULE_IMPL(Name, ImplType)                                     \
  class Name : public torch::nn::ModuleHolder<ImplType> {                      \
  public:                                                                      \
    using torch::nn::ModuleHolder<ImplType>::ModuleHolder;                     \
    using Impl = ImplType;                                                     \
  }
#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)
struct LinearOptions { LinearOptions(int64_t in, int64_t out); };
class LinearImpl : public Cloneable<LinearImpl> {
public:
  LinearImpl(int64_t in, int64_t out);
  explicit LinearImpl(const LinearOptions &options);
  void reset() override;
  Tensor forward(const Tensor &input);
  Tensor weight;
  Tensor bias;
};
class Linear : public ModuleHolder<LinearImpl> {
public:
  using ModuleHolder<LinearImpl>::ModuleHolder;
  Tensor operator()(const Tensor &input);
};
struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim);
  EmbeddingOptions &max_norm(const c10::optional<double> &new_max_norm);
  // torch/nn/options/embedding.h: the module registers this tensor itself.
  EmbeddingOptions &_weight(const Tensor &new_weight);
};
struct EmbeddingFromPretrainedOptions {
  EmbeddingFromPretrainedOptions &freeze(const bool &new_freeze);
};
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim);
  explicit EmbeddingImpl(const EmbeddingOptions &options);
  void reset() override;
  Tensor forward(const Tensor &indices);
  Tensor weight;
};
class Embedding : public ModuleHolder<EmbeddingImpl> {
public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  Tensor operator()(const Tensor &indices);
  // torch/nn/modules/embedding.h: passes embeddings as _weight, then sets
  // its requires_grad to !options.freeze() (freeze is true by default).
  static Embedding
  from_pretrained(const Tensor &embeddings,
                  const EmbeddingFromPretrainedOptions &options = {});
};
class SequentialImpl : public Cloneable<SequentialImpl> {
public:
  SequentialImpl() = default;
  template <typename... Modules> explicit SequentialImpl(Modules &&...modules);
  void reset() override;
  Tensor forward(const Tensor &input);
  template <typename M> void push_back(const ModuleHolder<M> &module_holder);
  template <typename ModuleType>
  void push_back(std::shared_ptr<ModuleType> module_ptr);
  size_t size() const noexcept;
  std::shared_ptr<Module> ptr(size_t index) const;
  template <typename T> std::shared_ptr<T> ptr(size_t index) const;
  template <typename T> T &at(size_t index);
};
class Sequential : public ModuleHolder<SequentialImpl> {
public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential();
  Tensor operator()(const Tensor &input);
};
class ModuleListImpl : public Cloneable<ModuleListImpl> {
public:
  ModuleListImpl() = default;
  template <typename... Modules> explicit ModuleListImpl(Modules &&...modules);
  void reset() override;
  template <typename M> void push_back(const ModuleHolder<M> &module_holder);
  template <typename ModuleType>
  void push_back(std::shared_ptr<ModuleType> module_ptr);
  std::shared_ptr<Module> operator[](size_t index) const;
  size_t size() const noexcept;
};
TORCH_MODULE(ModuleList);
// torch/nn/modules/container/moduledict.h: each pair's module is registered
// under its key; a key given again replaces the module before it.
class ModuleDictImpl : public Cloneable<ModuleDictImpl> {
public:
  ModuleDictImpl() = default;
  explicit ModuleDictImpl(
      const std::vector<std::pair<std::string, std::shared_ptr<Module>>> &modules);
  void reset() override;
  std::shared_ptr<Module> operator[](const std::string &key) const;
  size_t size() const noexcept;
};
TORCH_MODULE(ModuleDict);
// torch/nn/modules/container/parameterdict.h and parameterlist.h: insert
// registers its tensor as a parameter under its key (a key given again
// throws), append under the next index.
class ParameterDictImpl : public Cloneable<ParameterDictImpl> {
public:
  ParameterDictImpl() = default;
  void reset() override;
  Tensor &insert(std::string key, Tensor param);
  Tensor &operator[](const std::string &key);
  const Tensor &operator[](const std::string &key) const;
  size_t size() const noexcept;
};
TORCH_MODULE(ParameterDict);
class ParameterListImpl : public Cloneable<ParameterListImpl> {
public:
  ParameterListImpl() = default;
  void reset() override;
  void append(torch::Tensor &&param);
  void append(const torch::Tensor &param);
  Tensor &operator[](size_t idx);
  const Tensor &operator[](size_t idx) const;
  size_t size() const noexcept;
};
TORCH_MODULE(ParameterList);
namespace init {
Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor zeros_(Tensor tensor);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, Scalar value);
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
} // namespace init
// torch/nn/options/*.h and torch/nn/functional/*.h: TORCH_ARG setters return
// the options; the functional forms are inline functions.
struct ReLUOptions {
  ReLUOptions(bool inplace = false);
  ReLUOptions &inplace(const bool &new_inplace);
};
struct DropoutOptions {
  DropoutOptions(double p = 0.5);
  DropoutOptions &p(const double &new_p);
  DropoutOptions &inplace(const bool &new_inplace);
};
struct LeakyReLUOptions {
  LeakyReLUOptions();
  LeakyReLUOptions &negative_slope(const double &new_negative_slope);
  LeakyReLUOptions &inplace(const bool &new_inplace);
};
// torch/nn/modules/activation.h, dropout.h: the module forms of the
// functions below, built from the same options.
class ReLUImpl : public Cloneable<ReLUImpl> {
public:
  explicit ReLUImpl(const ReLUOptions &options_ = {});
  void reset() override;
  Tensor forward(Tensor input);
  ReLUOptions options;
};
TORCH_MODULE(ReLU);
class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
public:
  explicit LeakyReLUImpl(const LeakyReLUOptions &options_ = {});
  void reset() override;
  Tensor forward(Tensor input);
  LeakyReLUOptions options;
};
TORCH_MODULE(LeakyReLU);
class DropoutImpl : public Cloneable<DropoutImpl> {
public:
  DropoutImpl(double p);
  explicit DropoutImpl(const DropoutOptions &options_ = {});
  void reset() override;
  Tensor forward(Tensor input);
  DropoutOptions options;
};
TORCH_MODULE(Dropout);
namespace functional {
using ReLUFuncOptions = ReLUOptions;
struct DropoutFuncOptions {
  DropoutFuncOptions &p(const double &new_p);
  DropoutFuncOptions &training(const bool &new_training);
  DropoutFuncOptions &inplace(const bool &new_inplace);
};
struct BatchNormFuncOptions {
  BatchNormFuncOptions &weight(const Tensor &new_weight);
  BatchNormFuncOptions &bias(const Tensor &new_bias);
  BatchNormFuncOptions &training(const bool &new_training);
  BatchNormFuncOptions &momentum(const c10::optional<double> &new_momentum);
  BatchNormFuncOptions &eps(const double &new_eps);
};
struct EmbeddingFuncOptions {
  EmbeddingFuncOptions &padding_idx(const c10::optional<int64_t> &new_padding_idx);
  EmbeddingFuncOptions &max_norm(const c10::optional<double> &new_max_norm);
};
inline Tensor relu(Tensor input, const ReLUFuncOptions &options = {});
inline Tensor dropout(Tensor input, const DropoutFuncOptions &options = {});
inline Tensor batch_norm(const Tensor &input, const Tensor &running_mean,
                         const Tensor &running_var,
                         const BatchNormFuncOptions &options = {});
inline Tensor embedding(const Tensor &input, const Tensor &weight,
                        const EmbeddingFuncOptions &options = {});
} // namespace functional
namespace utils {
double clip_grad_norm_(std::vector<Tensor> parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(Tensor parameter, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
void clip_grad_value_(std::vector<Tensor> parameters, double clip_value);
void clip_grad_value_(Tensor parameter, double clip_value);
// torch/nn/utils/convert_parameters.h.
inline Tensor parameters_to_vector(std::vector<Tensor> parameters);
inline void vector_to_parameters(const Tensor &vec, std::vector<Tensor> parameters);
} // namespace utils
} // namespace nn
namespace optim {
class OptimizerOptions {
public:
  virtual ~OptimizerOptions() = default;
};
class OptimizerParamGroup {
public:
  OptimizerParamGroup(const OptimizerParamGroup &param_group);
  OptimizerParamGroup(std::vector<Tensor> params);
  OptimizerParamGroup(std::vector<Tensor> params,
                      std::unique_ptr<OptimizerOptions> options);
  std::vector<Tensor> &params();
  const std::vector<Tensor> &params() const;
};
class Optimizer {
public:
  Optimizer(const Optimizer &optimizer) = delete;
  Optimizer(Optimizer &&optimizer) = default;
  explicit Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults);
  explicit Optimizer(std::vector<Tensor> parameters,
                     std::unique_ptr<OptimizerOptions> defaults);
  void add_param_group(const OptimizerParamGroup &param_group);
  std::vector<OptimizerParamGroup> &param_groups() noexcept;
  const std::vector<OptimizerParamGroup> &param_groups() const noexcept;
  virtual ~Optimizer() = default;
  using LossClosure = std::function<Tensor()>;
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  void zero_grad();
};
struct SGDOptions : public OptimizerOptions {
  SGDOptions(double lr);
  SGDOptions &momentum(const double &new_momentum);
};
class SGD : public Optimizer {
public:
  explicit SGD(std::vector<OptimizerParamGroup> param_groups,
               SGDOptions defaults);
  explicit SGD(std::vector<Tensor> params, SGDOptions defaults);
  Tensor step(LossClosure closure = nullptr) override;
};
struct AdamOptions : public OptimizerOptions {
  AdamOptions(double lr = 1e-3);
};
class Adam : public Optimizer {
public:
  explicit Adam(std::vector<OptimizerParamGroup> param_groups,
                AdamOptions defaults = {});
  explicit Adam(std::vector<Tensor> params, AdamOptions defaults = {});
  Tensor step(LossClosure closure = nullptr) override;
};
} // namespace optim
} // namespace torch
