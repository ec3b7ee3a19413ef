#include "torchalias/instrument.h"

#include "json_text.h"

#include "torchalias/overlap.h"
#include "torchalias/parameters.h"

#include <ATen/core/grad_mode.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/autograd/function.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <mutex>
#include <string>

namespace torchalias {
namespace {

using detail::hex_address;
using detail::json_int_array;

// Sizes, strides and storage offset: what an overlap record needs to show
// where in the storage each tensor lies.
std::string layout_json(const at::Tensor &tensor) {
  facts layout;
  if (!tensor.defined())
    return layout.add("defined", false).to_json();
  layout.add_json("sizes", json_int_array(tensor.sizes()));
  if (tensor.layout() == at::kStrided)
    layout.add_json("strides", json_int_array(tensor.strides()))
        .add("storage_offset", tensor.storage_offset());
  return layout.to_json();
}

// Note [Overlapping operands]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An in-place or out= op whose operand shares bytes with its destination
// reads elements it has already written (or ATen refuses it). The bytes are
// compared with memory_overlap() (overlap.h): the same TensorImpl, or full
// or partial overlap, confirms; one storage without a shared byte (apart,
// or interleaved like two columns) is clean; no shared memory at all is
// not-applicable. Two storages over one address range (two from_blob()
// calls on one buffer) are compared too: ATen's own overlap checks miss
// them, so that is where a confirmation matters most.
//
// TORCHALIAS_AT_OVERLAP_DST evaluates before the operands of a member call
// (C++17 sequences the object expression first), so it remembers the
// destination in a thread-local slot keyed by the finding id, and
// TORCHALIAS_AT_OVERLAP_OPERAND reads it back. The slot holds a weak
// reference: it keeps no destination alive after its statement, and an
// operand whose destination has died since is not-applicable, as is one
// whose destination was never remembered on this thread. Free out=
// functions evaluate their arguments unsequenced, so their operands name
// the destination themselves (TORCHALIAS_AT_OVERLAP_OPERAND_OF).
verdict judge_overlap(const c10::optional<overlap_kind> &kind) {
  if (!kind)
    return verdict::not_applicable;
  return *kind == overlap_kind::disjoint_views ? verdict::clean
                                               : verdict::confirmed;
}

c10::optional<overlap_kind> overlap_of(const at::Tensor &destination,
                                       const at::Tensor &operand) {
  return memory_overlap(destination, operand, /*across_storages=*/true);
}

bool share_storage(const at::Tensor &a, const at::Tensor &b) {
  return a.has_storage() && b.has_storage() && a.is_alias_of(b);
}

// Appends to `details`, which may already say where the destination came
// from.
facts overlap_facts(const at::Tensor &destination, const at::Tensor &operand,
                    facts details = {}) {
  const c10::optional<overlap_kind> kind = overlap_of(destination, operand);
  details.add("overlap", kind ? to_string(*kind) : "none")
      .add("shared_storage", share_storage(destination, operand))
      .add_json("destination", layout_json(destination))
      .add_json("operand", layout_json(operand));
  return details;
}

using weak_tensor_impl =
    c10::weak_intrusive_ptr<c10::TensorImpl, c10::UndefinedTensorImpl>;
using finding_key = std::array<char, 16>;

finding_key key_of(const site_location &site) {
  finding_key key{};
  for (std::size_t i = 0;
       site.finding != nullptr && i < key.size() && site.finding[i] != '\0';
       ++i)
    key[i] = site.finding[i];
  return key;
}

struct remembered_destination {
  finding_key finding;
  weak_tensor_impl tensor;
};

// One entry per overlap finding this thread has reached: a handful.
thread_local std::vector<remembered_destination> remembered_destinations;

remembered_destination *find_remembered(const finding_key &key) {
  for (remembered_destination &entry : remembered_destinations) {
    if (entry.finding == key)
      return &entry;
  }
  return nullptr;
}

// Note [Detached writes]
// ~~~~~~~~~~~~~~~~~~~~~~
// `w.data().mul_(2)` writes w's memory through a tensor autograd does not
// know: .data() has a version counter of its own, so the graph's saved
// tensors cannot notice (detach() shares the counter, so backward at least
// fails loudly). The write matters when autograd tracks w: it requires
// grad and grad mode is on, which confirms. A source that does not require
// grad at run time (frozen, a buffer) or a write under NoGradGuard is
// clean; an undefined source is not-applicable. libtorch 1.13's C++ API
// does not say which tensors a graph node saved, so the verdict means
// "autograd tracks this tensor now", not "a live node saved it": the facts
// give grad_fn, the version counter and the handle count to judge by.
verdict judge_detached_source(const at::Tensor &source) {
  if (!source.defined())
    return verdict::not_applicable;
  return source.requires_grad() && at::GradMode::is_enabled()
             ? verdict::confirmed
             : verdict::clean;
}

// Note [Reused blobs]
// ~~~~~~~~~~~~~~~~~~~
// from_blob() wraps memory the tensor does not own. When the producer
// reuses the buffer (a ring of frames, a decoder's output) while an earlier
// tensor still wraps it, the earlier tensor's values change under it. Every
// wrapping passing TORCHALIAS_AT_FROM_BLOB is recorded with its address
// range, device, site and a weak reference to its StorageImpl: the storage,
// not the TensorImpl, because views and saved tensors keep the storage, and
// with it the wrapping, alive after the first handle dies. A new wrapping
// is confirmed when a recorded one that overlaps its range is still alive,
// and clean otherwise; expired entries are pruned on every wrap. The
// ranges are those at wrapping time (set_() or resize_() since are not
// followed). Freeing the buffer is not observable: it belongs to the
// caller. A buffer freed while still wrapped and handed out again by the
// allocator at the same address looks like reuse, rightly, since the
// earlier tensor then dangles; one that comes back elsewhere goes unseen.
// A mutex guards the registry: a wrap is per batch or frame, not per
// element.
struct blob_wrapping {
  std::uintptr_t begin;
  std::uintptr_t end;
  c10::Device device;
  c10::weak_intrusive_ptr<c10::StorageImpl> storage;
  const c10::StorageImpl *identity;
  const char *file;
  int line;
  const char *finding;
};

struct blob_registry {
  std::mutex mutex;
  std::vector<blob_wrapping> wrappings;
};

// Leaked, so that a wrap during static destruction still finds it.
blob_registry &blobs() {
  static blob_registry *registry = new blob_registry;
  return *registry;
}

struct blob_reuse {
  std::size_t earlier_alive = 0;
  c10::optional<blob_wrapping> latest; // the most recent of them
  std::size_t live_wrappings = 0;
};

blob_reuse record_wrapping(blob_wrapping wrapping) {
  blob_registry &registry = blobs();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto &all = registry.wrappings;
  all.erase(std::remove_if(all.begin(), all.end(),
                           [](const blob_wrapping &entry) {
                             return entry.storage.expired();
                           }),
            all.end());
  blob_reuse reuse;
  bool already_recorded = false;
  for (const blob_wrapping &entry : all) {
    if (entry.identity == wrapping.identity) {
      already_recorded = true; // the same wrapping passed the macro again
      continue;
    }
    if (entry.device == wrapping.device && entry.begin < wrapping.end &&
        wrapping.begin < entry.end) {
      ++reuse.earlier_alive;
      reuse.latest = entry;
    }
  }
  if (!already_recorded && wrapping.begin < wrapping.end)
    all.push_back(std::move(wrapping));
  reuse.live_wrappings = all.size();
  return reuse;
}

facts blob_facts(const blob_wrapping &wrapping, const blob_reuse &reuse) {
  facts details;
  details.add("address", hex_address(wrapping.begin))
      .add("bytes", static_cast<std::uint64_t>(wrapping.end - wrapping.begin))
      .add("device", wrapping.device.str())
      .add("earlier_alive", reuse.earlier_alive)
      .add("live_wrappings", reuse.live_wrappings);
  if (reuse.latest) {
    const blob_wrapping &earlier = *reuse.latest;
    details
        .add("earlier_site",
             std::string(earlier.file) + ":" + std::to_string(earlier.line))
        .add_json("earlier_finding", earlier.finding != nullptr
                                         ? json_quote(earlier.finding)
                                         : "null")
        .add("earlier_address", hex_address(earlier.begin))
        .add("earlier_bytes",
             static_cast<std::uint64_t>(earlier.end - earlier.begin));
  }
  return details;
}

// The pairs of entries that are one parameter or overlap in one storage.
std::vector<tensor_overlap> shared_pairs(const std::vector<at::Tensor> &list) {
  std::vector<tensor_overlap> pairs =
      find_overlaps(list, {/*include_disjoint_views=*/false});
  pairs.erase(std::remove_if(pairs.begin(), pairs.end(),
                             [](const tensor_overlap &pair) {
                               return pair.kind ==
                                      overlap_kind::disjoint_views;
                             }),
              pairs.end());
  return pairs;
}

verdict judge_parameter_list(std::size_t count, std::size_t shared) {
  if (count == 0)
    return verdict::not_applicable;
  return shared == 0 ? verdict::clean : verdict::confirmed;
}

// `where(i)` renders entry i of the flattened list as JSON.
template <class Where>
facts parameter_list_facts(const std::vector<at::Tensor> &list,
                           const std::vector<tensor_overlap> &pairs,
                           Where where) {
  std::string duplicates = "[";
  for (const tensor_overlap &pair : pairs) {
    facts entry;
    entry.add_json("first", where(pair.first))
        .add_json("second", where(pair.second))
        .add("kind", to_string(pair.kind));
    duplicates += (duplicates.size() > 1 ? "," : "") + entry.to_json();
  }
  facts details;
  details.add("parameters", list.size())
      .add("unique_parameters", unique_parameters(list).size())
      .add_json("duplicates", duplicates + "]");
  return details;
}

struct flattened_groups {
  std::vector<at::Tensor> tensors;
  std::vector<std::pair<std::size_t, std::size_t>> origin; // (group, index)
};

flattened_groups
flatten(const std::vector<torch::optim::OptimizerParamGroup> &groups) {
  flattened_groups flat;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::vector<at::Tensor> &params = groups[g].params();
    for (std::size_t i = 0; i < params.size(); ++i) {
      flat.tensors.push_back(params[i]);
      flat.origin.emplace_back(g, i);
    }
  }
  return flat;
}

facts group_facts(const std::vector<torch::optim::OptimizerParamGroup> &groups,
                  const flattened_groups &flat,
                  const std::vector<tensor_overlap> &pairs) {
  facts details = parameter_list_facts(
      flat.tensors, pairs, [&](std::size_t i) {
        return "[" + std::to_string(flat.origin[i].first) + "," +
               std::to_string(flat.origin[i].second) + "]";
      });
  details.add("groups", groups.size());
  return details;
}

std::string index_json(std::size_t i) { return std::to_string(i); }

} // namespace

validation_result check_overlap(const at::Tensor &destination,
                                const at::Tensor &operand) {
  return {judge_overlap(overlap_of(destination, operand)),
          overlap_facts(destination, operand)};
}

verdict validate_overlap(const at::Tensor &destination,
                         const at::Tensor &operand, site_location &site) {
  const verdict outcome = judge_overlap(overlap_of(destination, operand));
  if (count_validation(site, outcome))
    write_record(site, outcome, overlap_facts(destination, operand));
  return outcome;
}

void remember_overlap_destination(const at::Tensor &destination,
                                  const site_location &site) {
  const finding_key key = key_of(site);
  weak_tensor_impl weak(destination.getIntrusivePtr());
  if (remembered_destination *entry = find_remembered(key)) {
    entry->tensor = std::move(weak);
    return;
  }
  remembered_destinations.push_back({key, std::move(weak)});
}

verdict validate_overlap_operand(const at::Tensor &operand,
                                 site_location &site) {
  const remembered_destination *entry = find_remembered(key_of(site));
  auto strong = entry != nullptr ? entry->tensor.lock()
                                 : c10::intrusive_ptr<c10::TensorImpl,
                                                      c10::UndefinedTensorImpl>();
  if (!strong) {
    const verdict outcome = verdict::not_applicable;
    if (count_validation(site, outcome)) {
      facts details;
      details.add("destination_remembered", false)
          .add("overlap", "none")
          .add_json("operand", layout_json(operand));
      write_record(site, outcome, details);
    }
    return outcome;
  }
  const at::Tensor destination(std::move(strong));
  const verdict outcome = judge_overlap(overlap_of(destination, operand));
  if (count_validation(site, outcome)) {
    facts remembered;
    remembered.add("destination_remembered", true);
    write_record(site, outcome,
                 overlap_facts(destination, operand, std::move(remembered)));
  }
  return outcome;
}

validation_result check_detached_source(const at::Tensor &source) {
  facts details;
  details.add("defined", source.defined());
  if (!source.defined())
    return {verdict::not_applicable, std::move(details)};
  const auto &grad_fn = source.grad_fn();
  details.add("requires_grad", source.requires_grad())
      .add("is_leaf", source.is_leaf())
      .add_json("grad_fn",
                grad_fn ? json_quote(grad_fn->name()) : std::string("null"))
      .add("grad_mode", at::GradMode::is_enabled())
      .add("version", source._version())
      .add("use_count", source.use_count());
  return {judge_detached_source(source), std::move(details)};
}

verdict validate_detached_source(const at::Tensor &source,
                                 site_location &site) {
  const verdict outcome = judge_detached_source(source);
  if (count_validation(site, outcome))
    write_record(site, outcome, check_detached_source(source).facts);
  return outcome;
}

verdict validate_from_blob(const at::Tensor &wrapped, site_location &site) {
  if (!wrapped.defined() || !wrapped.has_storage()) {
    const verdict outcome = verdict::not_applicable;
    if (count_validation(site, outcome)) {
      facts details;
      details.add("defined", wrapped.defined())
          .add("has_storage", wrapped.has_storage());
      write_record(site, outcome, details);
    }
    return outcome;
  }
  const c10::Storage &storage = wrapped.storage();
  const auto begin = reinterpret_cast<std::uintptr_t>(storage.data());
  blob_wrapping wrapping{begin,
                         begin + storage.nbytes(),
                         wrapped.device(),
                         storage.getWeakStorageImpl(),
                         storage.unsafeGetStorageImpl(),
                         site.file,
                         site.line,
                         site.finding};
  const blob_reuse reuse = record_wrapping(wrapping);
  const verdict outcome =
      reuse.earlier_alive > 0 ? verdict::confirmed : verdict::clean;
  if (count_validation(site, outcome))
    write_record(site, outcome, blob_facts(wrapping, reuse));
  return outcome;
}

validation_result check_parameter_list(const std::vector<at::Tensor> &params) {
  const std::vector<tensor_overlap> pairs = shared_pairs(params);
  return {judge_parameter_list(params.size(), pairs.size()),
          parameter_list_facts(params, pairs, index_json)};
}

validation_result check_parameter_list(
    const std::vector<torch::optim::OptimizerParamGroup> &groups) {
  const flattened_groups flat = flatten(groups);
  const std::vector<tensor_overlap> pairs = shared_pairs(flat.tensors);
  return {judge_parameter_list(flat.tensors.size(), pairs.size()),
          group_facts(groups, flat, pairs)};
}

verdict validate_parameter_list(const std::vector<at::Tensor> &params,
                                site_location &site) {
  const std::vector<tensor_overlap> pairs = shared_pairs(params);
  const verdict outcome = judge_parameter_list(params.size(), pairs.size());
  if (count_validation(site, outcome))
    write_record(site, outcome,
                 parameter_list_facts(params, pairs, index_json));
  return outcome;
}

verdict validate_parameter_list(
    const std::vector<torch::optim::OptimizerParamGroup> &groups,
    site_location &site) {
  const flattened_groups flat = flatten(groups);
  const std::vector<tensor_overlap> pairs = shared_pairs(flat.tensors);
  const verdict outcome =
      judge_parameter_list(flat.tensors.size(), pairs.size());
  if (count_validation(site, outcome))
    write_record(site, outcome, group_facts(groups, flat, pairs));
  return outcome;
}

verdict validate_parameter_list(const torch::nn::Module &module,
                                site_location &site) {
  return validate_parameters(module, site);
}

} // namespace torchalias
