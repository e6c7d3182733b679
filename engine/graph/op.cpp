// Default behaviour of the Op interface, and property formatting.
#include "engine/graph/op.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <mutex>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/tuple_codes.hpp"

namespace rw {

std::string format_prop_value(const PropValue& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "none"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      if (std::isnan(d)) return "nan";
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      std::string s = fmt::format("{}", d);
      if (s.find_first_of(".eE") == std::string::npos) s += ".0";
      return s;
    }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::int64_t>& v) const {
      std::string out = "(";
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(v[i]);
      }
      return out + ")";
    }
    std::string operator()(DType t) const { return std::string(dtype_name(t)); }
  };
  return std::visit(Visitor{}, value);
}

std::string_view tuple_word(std::string_view prop, std::int64_t value) {
  if (prop == "order" && value == kNewAxis) return "x";
  if (prop == "index" && value == kIndexFromInput) return "i";
  return {};
}

std::string format_prop_value(std::string_view prop, const PropValue& value) {
  const auto* tuple = std::get_if<std::vector<std::int64_t>>(&value);
  if (!tuple) return format_prop_value(value);
  std::string out = "(";
  for (std::size_t i = 0; i < tuple->size(); ++i) {
    if (i) out += ',';
    const std::string_view word = tuple_word(prop, (*tuple)[i]);
    out += word.empty() ? std::to_string((*tuple)[i]) : std::string(word);
  }
  return out + ")";
}

std::size_t hash_prop_value(const PropValue& value) {
  std::size_t h = value.index() * 0x9e3779b97f4a7c15ULL;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          for (auto x : v) h = h * 31 + std::hash<std::int64_t>()(x);
        } else if constexpr (std::is_same_v<T, DType>) {
          h ^= static_cast<std::size_t>(v) + 1;
        } else {
          h ^= std::hash<T>()(v);
        }
      },
      value);
  return h;
}

const PropValue* find_prop(const Props& props, std::string_view name) {
  for (const auto& p : props)
    if (p.name == name) return &p.value;
  return nullptr;
}

namespace {

/// The interned Op names: id - 1 indexes `names`, whose strings never move.
struct KindTable {
  std::mutex mutex;
  std::deque<std::string> names;
  std::unordered_map<std::string_view, std::uint32_t> ids;
};

KindTable& kind_table() {
  // Leaked on purpose: Ops destroyed during static destruction may still ask.
  static KindTable* table = new KindTable;
  return *table;
}

}  // namespace

OpKind OpKind::of(std::string_view name) {
  KindTable& t = kind_table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  if (auto it = t.ids.find(name); it != t.ids.end()) return OpKind(it->second);
  t.names.emplace_back(name);
  const auto id = static_cast<std::uint32_t>(t.names.size());
  t.ids.emplace(t.names.back(), id);
  return OpKind(id);
}

std::string_view OpKind::name() const {
  if (id_ == 0) return {};
  KindTable& t = kind_table();
  const std::lock_guard<std::mutex> lock(t.mutex);
  return t.names[id_ - 1];
}

namespace {
std::uint32_t class_index_of_name(std::string_view name) {
  // By name: two type_info objects of one class (one per shared library that
  // does not share them) have the same name. Two classes of internal linkage
  // may share a name too, so equal numbers are necessary for equal classes,
  // not sufficient: op_as confirms a match with type_info.
  struct ClassTable {
    std::mutex mutex;
    std::deque<std::string> names;  // copied: a library may be unloaded
    std::unordered_map<std::string_view, std::uint32_t> ids;
  };
  static ClassTable* table = new ClassTable;  // leaked, as the kind table
  const std::lock_guard<std::mutex> lock(table->mutex);
  if (auto it = table->ids.find(name); it != table->ids.end()) return it->second;
  table->names.emplace_back(name);
  const auto id = static_cast<std::uint32_t>(table->names.size());
  table->ids.emplace(table->names.back(), id);
  return id;
}
}  // namespace

std::uint32_t Op::class_index_of(const std::type_info& type) {
  return class_index_of_name(type.name());
}

std::uint32_t Op::class_index_of(const std::type_index& type) {
  return class_index_of_name(type.name());
}

std::uint32_t Op::intern_class() const {
  // New Ops come in runs of a few classes (a Composite per fused group, an
  // Elemwise per rewritten node): each thread remembers the last classes it
  // interned by their type_info, sparing the table's lock and string hash.
  thread_local std::array<std::pair<const std::type_info*, std::uint32_t>, 4> recent{};
  const std::type_info* type = &typeid(*this);
  std::uint32_t c = 0;
  for (const auto& [t, id] : recent)
    if (t == type) c = id;
  if (!c) {
    c = class_index_of(*type);
    std::move_backward(recent.begin(), recent.end() - 1, recent.end());
    recent.front() = {type, c};
  }
  class_.store(c, std::memory_order_relaxed);
  return c;
}

OpKind Op::intern_kind() const {
  const OpKind k = OpKind::of(name());
  kind_.store(k.id_, std::memory_order_relaxed);
  return k;
}

namespace {
// What every Op without properties (or without views or destroyed inputs)
// points at: no allocation for them. Never destroyed, so Ops that outlive
// static destruction may still use them.
template <class T> const T& none() {
  static const T* const empty = new T();
  return *empty;
}

// The value `compute()` gives, computed once and published in `slot`; the
// first of several threads computing it at once wins.
template <class T, class F> const T& keep_once(std::atomic<const T*>& slot, F compute) {
  if (const T* p = slot.load(std::memory_order_acquire)) return *p;
  T computed = compute();
  const T* expected = nullptr;
  if (computed.empty()) {
    slot.compare_exchange_strong(expected, &none<T>(), std::memory_order_acq_rel);
    return expected ? *expected : none<T>();
  }
  auto made = std::make_unique<const T>(std::move(computed));
  if (slot.compare_exchange_strong(expected, made.get(), std::memory_order_acq_rel))
    return *made.release();
  return *expected;
}

template <class T> void release(std::atomic<const T*>& slot) {
  const T* p = slot.load(std::memory_order_relaxed);
  if (p != &none<T>()) delete p;
}
}  // namespace

Op::~Op() {
  release(props_);
  release(view_map_);
  release(destroy_map_);
  release(default_updates_);
}

const Props& Op::cached_props() const {
  return keep_once(props_, [&] { return props(); });
}

const IoMap& Op::cached_view_map() const {
  return keep_once(view_map_, [&] { return view_map(); });
}

const IoMap& Op::cached_destroy_map() const {
  return keep_once(destroy_map_, [&] { return destroy_map(); });
}

const IoMap& Op::cached_default_updates() const {
  return keep_once(default_updates_, [&] { return default_updates(); });
}

bool Op::equals(const Op& other) const {
  if (this == &other) return true;
  return hash() == other.hash() && typeid(*this) == typeid(other) && kind() == other.kind() &&
         cached_props() == other.cached_props();
}

std::size_t Op::compute_hash() const {
  std::size_t h = std::hash<std::string_view>()(name());
  for (const auto& p : cached_props())
    h = h * 1000003u ^ (std::hash<std::string>()(p.name) + hash_prop_value(p.value));
  if (h == 0) h = 1;
  hash_.store(h, std::memory_order_relaxed);
  return h;
}

std::string Op::to_string() const {
  const Props& ps = cached_props();
  std::string out(name());
  if (ps.empty()) return out;
  out += '{';
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (i) out += ',';
    out += ps[i].name + "=" + format_prop_value(ps[i].name, ps[i].value);
  }
  return out + '}';
}

Var Op::operator()(std::span<const Var> inputs) const {
  return make_node(inputs)->default_output();
}

Var Op::operator()(std::initializer_list<Var> inputs) const {
  return (*this)(std::span<const Var>(inputs.begin(), inputs.size()));
}

void Op::perform(const Apply&, std::span<const Tensor>, std::span<Tensor>) const {
  throw NotImplementedError("op `" + to_string() + "` cannot be evaluated (it has no perform)");
}

void Op::debug_perform(const Apply& node, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) const {
  perform(node, inputs, outputs);
}

std::optional<NativeCode> Op::native_code(const Apply&, const NativeNames&) const {
  return std::nullopt;
}

std::optional<double> Op::flops(const Apply&, std::span<const Shape>, std::span<const Shape>) const {
  return std::nullopt;
}

std::vector<ShapeVars> Op::infer_shape(const Apply&, std::span<const ShapeVars>) const {
  throw NotImplementedError("op `" + to_string() + "` does not implement infer_shape");
}

std::vector<Var> Op::L_op(const Apply& node, std::span<const Var> output_grads) const {
  return grad(node, output_grads);
}

std::vector<Var> Op::grad(const Apply&, std::span<const Var>) const {
  throw NotImplementedError("op `" + to_string() + "` is not differentiable (it has no grad)");
}

std::vector<Var> Op::R_op(const Apply&, std::span<const Var>) const {
  throw NotImplementedError("op `" + to_string() + "` does not implement R_op");
}

std::vector<std::vector<bool>> Op::connection_pattern(const Apply& node) const {
  return std::vector<std::vector<bool>>(node.num_inputs(),
                                        std::vector<bool>(node.num_outputs(), true));
}

bool Op::do_constant_folding(const Apply&) const { return true; }

}  // namespace rw
