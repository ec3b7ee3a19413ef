// Mock of libtorch's ATen headers for the lit tests. The declarations follow
// Debian's libtorch 1.13.1 (ATen/core/TensorBody.h, TensorBase.h,
// ATen/Functions.h): in-place methods are `const`, views return `Tensor` by
// value, in-place and out= functions return `Tensor&`. Only what the tests use
// is declared; keep new declarations faithful to the real headers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

namespace c10 {
struct nullopt_t { constexpr explicit nullopt_t(int) {} };
constexpr nullopt_t nullopt{0};
template <class T> class optional {
public:
  optional() {}
  optional(nullopt_t) {}
  template <class U> optional(U &&) {}
};
template <class T> class ArrayRef {
public:
  ArrayRef() {}
  ArrayRef(const T &) {}
  ArrayRef(const std::vector<T> &) {}
  ArrayRef(std::initializer_list<T>) {}
  const T &operator[](size_t index) const;
  const T *begin() const;
  const T *end() const;
  size_t size() const;
};
using IntArrayRef = ArrayRef<int64_t>;
class Scalar {
public:
  Scalar(int) {}
  Scalar(int64_t) {}
  Scalar(double) {}
  Scalar(float) {}
  Scalar(bool) {}
};
enum class ScalarType : int8_t { Byte, Float, Double, Long, Bool, Half };
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast };
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
struct Device {
  /* implicit */ Device(DeviceType type, int8_t index = -1) {}
  /* implicit */ Device(const std::string &) {}
};
struct TensorOptions {
  TensorOptions() {}
  TensorOptions(ScalarType) {}
  // The real constructors are templates forwarding to Device.
  /* implicit */ TensorOptions(Device) {}
  /* implicit */ TensorOptions(DeviceType) {}
  TensorOptions dtype(ScalarType) const;
  TensorOptions requires_grad(bool = true) const;
};
TensorOptions requires_grad(bool requires_grad = true);
class TensorImpl;
class Storage {};
template <class T> class List {
public:
  List() {}
  List(std::initializer_list<T>) {}
  // ATen/core/List.h: a copy shares the list itself.
  T get(size_t pos) const;
  void set(size_t pos, const T &value) const;
  void push_back(const T &value) const;
  size_t size() const;
};
// ATen/core/Dict.h: a copy shares the dictionary itself.
template <class Key, class Value> class Dict {
public:
  Dict() {}
  Value at(const Key &key) const;
  void insert_or_assign(const Key &key, const Value &value) const;
  template <class K, class V> void insert(K &&key, V &&value) const;
  size_t size() const;
};
} // namespace c10

namespace at {
using c10::ArrayRef;
using c10::IntArrayRef;
using c10::MemoryFormat;
using c10::nullopt;
using c10::optional;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;
using c10::Device;
using c10::DeviceType;
using c10::kCPU;
using c10::kCUDA;
using c10::requires_grad;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kLong = ScalarType::Long;
class Tensor;
using TensorList = ArrayRef<Tensor>;

namespace indexing {
struct EllipsisIndexType {};
struct Slice {
  Slice(optional<int64_t> start = nullopt, optional<int64_t> stop = nullopt,
        optional<int64_t> step = nullopt);
};
struct TensorIndex {
  TensorIndex(c10::nullopt_t);
  TensorIndex(int64_t);
  TensorIndex(int);
  TensorIndex(bool);
  TensorIndex(Slice);
  TensorIndex(EllipsisIndexType);
  TensorIndex(const char *);
  TensorIndex(Tensor);
};
constexpr c10::nullopt_t None = c10::nullopt;
constexpr EllipsisIndexType Ellipsis{};
} // namespace indexing

// ATen/core/TensorAccessor.h: element access without autograd.
template <typename T, size_t N> class TensorAccessor {
public:
  TensorAccessor<T, N - 1> operator[](int64_t i) const;
  int64_t size(int64_t i) const;
};
template <typename T> class TensorAccessor<T, 1> {
public:
  T &operator[](int64_t i) const;
  int64_t size(int64_t i) const;
};

class TensorBase {
public:
  int64_t dim() const;
  int64_t size(int64_t dim) const;
  IntArrayRef sizes() const;
  int64_t numel() const;
  bool defined() const;
  bool is_contiguous() const;
  bool requires_grad() const;
  void *data_ptr() const;
  template <typename T> T *data_ptr() const;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() const &;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() && = delete;
  c10::TensorImpl *unsafeGetTensorImpl() const;
  const c10::Storage &storage() const;
  bool is_same(const TensorBase &other) const;
  int64_t use_count() const;
};

class Tensor : public TensorBase {
public:
  Tensor();
  Tensor(const Tensor &);
  Tensor(Tensor &&);
  Tensor &operator=(const Tensor &x) &;
  Tensor &operator=(Tensor &&x) &;
  Tensor &operator=(Scalar v) &&;
  Tensor &operator=(const Tensor &rhs) &&;
  Tensor &operator=(Tensor &&rhs) &&;

  Tensor operator[](Scalar index) const;
  Tensor operator[](Tensor index) const;
  Tensor operator[](int64_t index) const;
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor &index_put_(ArrayRef<indexing::TensorIndex> indices, Tensor const &rhs);
  Tensor &index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar &v);
  Tensor &index_put_(std::initializer_list<indexing::TensorIndex> indices, Tensor const &rhs);
  Tensor &index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar &v);
  Tensor &operator+=(const Tensor &other);
  Tensor &operator+=(Scalar other);
  Tensor &operator-=(const Tensor &other);
  Tensor &operator*=(const Tensor &other);
  Tensor &operator*=(Scalar other);
  Tensor &operator/=(const Tensor &other);
  Tensor &operator/=(Scalar other);

  // Views.
  Tensor slice(int64_t dim = 0, optional<int64_t> start = nullopt,
               optional<int64_t> end = nullopt, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor view(IntArrayRef size) const;
  Tensor view_as(const Tensor &other) const;
  Tensor t() const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  Tensor expand_as(const Tensor &other) const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    optional<int64_t> storage_offset = nullopt) const;
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor detach() const;
  Tensor &detach_() const;
  Tensor &unsqueeze_(int64_t dim) const;
  Tensor &t_() const;
  Tensor data() const;
  // TensorBody.h: the same operation as data().
  Tensor variable_data() const;
  Tensor alias() const;
  // May-alias operations.
  Tensor reshape(IntArrayRef shape) const;
  Tensor reshape_as(const Tensor &other) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  Tensor to(TensorOptions options = {}, bool non_blocking = false,
            bool copy = false, optional<MemoryFormat> memory_format = nullopt) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false,
            optional<MemoryFormat> memory_format = nullopt) const;
  Tensor type_as(const Tensor &other) const;
  // Out of place.
  Tensor clone(optional<MemoryFormat> memory_format = nullopt) const;
  Tensor new_empty(IntArrayRef size, TensorOptions options = {}) const;
  Tensor new_zeros(IntArrayRef size, TensorOptions options = {}) const;
  Tensor addmm(const Tensor &mat1, const Tensor &mat2, const Scalar &beta = 1,
               const Scalar &alpha = 1) const;
  Tensor add(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor add(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor sub(const Tensor &other, const Scalar &alpha = 1) const;
  bool allclose(const Tensor &other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;
  Tensor mul(const Tensor &other) const;
  Tensor mul(const Scalar &other) const;
  Tensor div(const Tensor &other) const;
  Tensor div(const Scalar &other) const;
  Tensor sum(optional<ScalarType> dtype = nullopt) const;
  Tensor norm(const Scalar &p = 2) const;
  Tensor norm(const optional<Scalar> &p, IntArrayRef dim,
              bool keepdim = false) const;
  Tensor mean(optional<ScalarType> dtype = nullopt) const;
  Tensor max() const;
  Tensor min() const;
  Tensor matmul(const Tensor &other) const;
  Tensor relu() const;
  Tensor sqrt() const;
  Tensor abs() const;
  Tensor gt(const Scalar &other) const;
  Tensor operator>(const Scalar &other) const;
  // What autograd saves (checks/data/aten-saved-tensors.json): exp, sigmoid,
  // tanh their result; pow, log their input.
  Tensor exp() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor log() const;
  Tensor pow(const Tensor &exponent) const;
  Tensor pow(const Scalar &exponent) const;
  Tensor &exp_() const;
  Tensor &sigmoid_() const;
  Tensor &tanh_() const;
  Tensor grad() const;
  Scalar item() const;
  template <typename T> T item() const;
  // In place.
  Tensor &add_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &add_(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor &sub_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &sub_(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor &mul_(const Tensor &other) const;
  Tensor &mul_(const Scalar &other) const;
  Tensor &div_(const Tensor &other) const;
  Tensor &div_(const Scalar &other) const;
  Tensor &addmm_(const Tensor &mat1, const Tensor &mat2,
                 const Scalar &beta = 1, const Scalar &alpha = 1) const;
  Tensor &zero_() const;
  Tensor &fill_(const Scalar &value) const;
  Tensor &copy_(const Tensor &src, bool non_blocking = false) const;
  Tensor &clamp_(optional<Scalar> min = nullopt, optional<Scalar> max = nullopt) const;
  Tensor clamp_min(const Scalar &min) const;
  Tensor &relu_() const;
  Tensor &sqrt_() const;
  Tensor &masked_fill_(const Tensor &mask, const Scalar &value) const;
  Tensor masked_fill(const Tensor &mask, const Scalar &value) const;
  Tensor &index_put_(const c10::List<c10::optional<Tensor>> &indices,
                     const Tensor &values, bool accumulate = false) const;
  Tensor &uniform_(double from = 0, double to = 1) const;
  Tensor &normal_(double mean = 0, double std = 1) const;
  Tensor &set_requires_grad(bool) ;
  Tensor &requires_grad_(bool requires_grad = true) const;
  void backward() const;
};
} // namespace at

namespace at {
// ATen/TensorOperators.h: out-of-place arithmetic.
Tensor operator+(const Tensor &self, const Tensor &other);
Tensor operator+(const Tensor &self, const Scalar &other);
Tensor operator-(const Tensor &self, const Tensor &other);
Tensor operator-(const Tensor &self, const Scalar &other);
Tensor operator*(const Tensor &self, const Tensor &other);
Tensor operator*(const Tensor &self, const Scalar &other);
Tensor operator*(const Scalar &self, const Tensor &other);
Tensor operator/(const Tensor &self, const Tensor &other);
Tensor operator/(const Tensor &self, const Scalar &other);
// Factories.
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor arange(const Scalar &end, TensorOptions options = {});
Tensor empty_like(const Tensor &self, TensorOptions options = {});
Tensor zeros_like(const Tensor &self, TensorOptions options = {});
Tensor from_blob(void *data, IntArrayRef sizes, const TensorOptions &options = {});
// Functions.
Tensor narrow(const Tensor &self, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor &self, int64_t dim, int64_t index);
Tensor reshape(const Tensor &self, IntArrayRef shape);
Tensor flatten(const Tensor &self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor expand_copy(const Tensor &self, IntArrayRef size, bool implicit = false);
Tensor broadcast_to(const Tensor &self, IntArrayRef size);
Tensor add(const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor matmul(const Tensor &self, const Tensor &other);
bool equal(const Tensor &self, const Tensor &other);
bool allclose(const Tensor &self, const Tensor &other, double rtol = 1e-05,
              double atol = 1e-08, bool equal_nan = false);
Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor stack(TensorList tensors, int64_t dim = 0);
Tensor relu(const Tensor &self);
Tensor &relu_out(Tensor &out, const Tensor &self);
Tensor &relu_(Tensor &self);
Tensor exp(const Tensor &self);
Tensor sigmoid(const Tensor &self);
Tensor tanh(const Tensor &self);
Tensor pow(const Tensor &self, const Tensor &exponent);
Tensor pow(const Tensor &self, const Scalar &exponent);
Tensor mm(const Tensor &self, const Tensor &mat2);
Tensor &addmv_(Tensor &self, const Tensor &mat, const Tensor &vec,
               const Scalar &beta = 1, const Scalar &alpha = 1);
Tensor &add_out(Tensor &out, const Tensor &self, const Tensor &other,
                const Scalar &alpha = 1);
Tensor &add_outf(const Tensor &self, const Tensor &other, const Scalar &alpha,
                 Tensor &out);
Tensor &mul_out(Tensor &out, const Tensor &self, const Tensor &other);
Tensor &mul_outf(const Tensor &self, const Tensor &other, Tensor &out);
Tensor &cat_out(Tensor &out, TensorList tensors, int64_t dim = 0);
// The _foreach_ operators write every tensor of their first list in place.
void _foreach_mul_(TensorList self, const Scalar &scalar);
void _foreach_add_(TensorList self, TensorList other, const Scalar &alpha = 1);
void _foreach_zero_(TensorList self);
Tensor &matmul_out(Tensor &out, const Tensor &self, const Tensor &other);
Tensor &mm_out(Tensor &out, const Tensor &self, const Tensor &mat2);
Tensor &bmm_out(Tensor &out, const Tensor &self, const Tensor &mat2);
Tensor &matrix_power_out(Tensor &out, const Tensor &self, int64_t n);
Tensor &linalg_matrix_power_out(Tensor &out, const Tensor &self, int64_t n);
Tensor &addmm_out(Tensor &out, const Tensor &self, const Tensor &mat1,
                  const Tensor &mat2, const Scalar &beta = 1,
                  const Scalar &alpha = 1);
Tensor &sum_out(Tensor &out, const Tensor &self, IntArrayRef dim,
                bool keepdim = false, optional<ScalarType> dtype = nullopt);
Tensor batch_norm(const Tensor &input, const optional<Tensor> &weight,
                  const optional<Tensor> &bias,
                  const optional<Tensor> &running_mean,
                  const optional<Tensor> &running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled);
Tensor &_amp_update_scale_(Tensor &self, Tensor &growth_tracker,
                           const Tensor &found_inf, double scale_growth_factor,
                           double scale_backoff_factor, int64_t growth_interval);
} // namespace at
