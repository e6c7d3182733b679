// Building graph nodes from terms, post-order over an explicit stack.
#include "engine/unify/reify_graph.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <variant>

#include <boost/container/small_vector.hpp>
#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/type.hpp"
#include "engine/unify/graph_terms.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/unify.hpp"

namespace rw {

namespace {

/// Thrown inside the builder; caught at the top and turned into `why`.
struct BuildFailure {
  std::string why;
};

template <class T> bool fits(std::int64_t n) {
  return n >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
         n <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
}

// The 0-d tensor of dtype `dt` holding the literal's value exactly.
std::optional<Tensor> literal_tensor(const Term& lit, DType dt) {
  switch (lit.kind()) {
    case TermKind::Int: {
      const std::int64_t n = lit.as_int();
      switch (dt) {
        case DType::Int8: return fits<std::int8_t>(n) ? std::optional(Tensor::scalar(static_cast<std::int8_t>(n))) : std::nullopt;
        case DType::Int16: return fits<std::int16_t>(n) ? std::optional(Tensor::scalar(static_cast<std::int16_t>(n))) : std::nullopt;
        case DType::Int32: return fits<std::int32_t>(n) ? std::optional(Tensor::scalar(static_cast<std::int32_t>(n))) : std::nullopt;
        case DType::Int64: return Tensor::scalar(n);
        case DType::UInt8: return fits<std::uint8_t>(n) ? std::optional(Tensor::scalar(static_cast<std::uint8_t>(n))) : std::nullopt;
        case DType::Float32: {
          const float f = static_cast<float>(n);
          if (static_cast<std::int64_t>(f) != n) return std::nullopt;
          return Tensor::scalar(f);
        }
        case DType::Float64: {
          const double d = static_cast<double>(n);
          if (static_cast<std::int64_t>(d) != n) return std::nullopt;
          return Tensor::scalar(d);
        }
        case DType::Bool: return std::nullopt;
      }
      return std::nullopt;
    }
    case TermKind::Float: {
      const double x = lit.as_float();
      if (dt == DType::Float64) return Tensor::scalar(x);
      if (dt == DType::Float32) return Tensor::scalar(static_cast<float>(x));
      if (dt == DType::Bool || !std::isfinite(x) || std::trunc(x) != x ||
          std::fabs(x) > 9.2e18)
        return std::nullopt;
      return literal_tensor(Term::integer(static_cast<std::int64_t>(x)), dt);
    }
    case TermKind::Bool:
      if (dt != DType::Bool) return std::nullopt;
      return Tensor::scalar(lit.as_bool());
    default: return std::nullopt;
  }
}

DType default_dtype(const Term& lit) {
  switch (lit.kind()) {
    case TermKind::Int: return DType::Int64;
    case TermKind::Bool: return DType::Bool;
    default: return DType::Float64;
  }
}

bool is_literal(const Term& t) {
  const TermKind k = t.kind();
  return k == TermKind::Int || k == TermKind::Float || k == TermKind::Bool;
}

class Builder {
 public:
  Builder(const Substitution& s, const GraphBuildOptions& o) : s_(s), o_(o) {}

  Var run(const Term& root) {
    visit(root);
    while (!frames_.empty()) {
      Frame& f = frames_.back();
      if (f.next < f.args_end - f.args_begin) {
        const Term* arg = args_[f.args_begin + f.next++];
        visit(*arg);
        continue;
      }
      Var built = finish();
      const std::uint64_t key = frames_.back().key;
      results_.resize(frames_.back().base);
      args_.resize(frames_.back().args_begin);
      frames_.pop_back();
      if (key) memo_.emplace(key, built);
      results_.emplace_back(std::move(built));
    }
    Item& top = results_.back();
    if (auto* v = std::get_if<Var>(&top)) return *v;
    const Term lit = std::get<Term>(top);
    return constant(lit, o_.literal_dtype.value_or(default_dtype(lit)), frames_.size(), -1);
  }

 private:
  // A built input, or a literal waiting for its application's dtype.
  using Item = std::variant<Var, Term>;
  // A node being built. Its arguments are pointers into the term (which the
  // caller and the substitution keep alive), stacked in args_ from
  // args_begin to args_end.
  struct Frame {
    OpPtr op;
    std::size_t args_begin = 0;
    std::size_t args_end = 0;
    std::size_t next = 0;  // the argument being built is next - 1
    std::size_t base = 0;
    std::uint64_t key = 0;
  };

  // "input 0 of `div`, input 1 of `mul`: " for the first `depth` frames (each
  // at the argument it is building), then input `extra` of the next frame;
  // only the innermost levels of a deep term are shown.
  std::string location(std::size_t depth, long extra) const {
    std::vector<std::string> steps;
    const std::size_t n = extra >= 0 ? depth + 1 : depth;
    for (std::size_t i = 0; i < n; ++i) {
      const Frame& f = frames_[i];
      const std::size_t arg = i < depth ? f.next - 1 : static_cast<std::size_t>(extra);
      steps.push_back(fmt::format("input {} of `{}`", arg, f.op->name()));
    }
    constexpr std::size_t kShown = 6;
    std::string out;
    const std::size_t first = steps.size() > kShown ? steps.size() - kShown : 0;
    if (first) out += "…, ";
    for (std::size_t i = first; i < steps.size(); ++i) {
      out += steps[i];
      out += i + 1 < steps.size() ? ", " : ": ";
    }
    return out;
  }

  [[noreturn]] void fail(std::size_t depth, long extra, const std::string& what) const {
    throw BuildFailure{location(depth, extra) + what};
  }

  Var constant(const Term& lit, DType dt, std::size_t depth, long extra) {
    auto t = literal_tensor(lit, dt);
    if (!t)
      fail(depth, extra,
           fmt::format("the literal {} is not exactly a {} value", to_string(lit), dtype_name(dt)));
    return Constant::make(std::move(*t));
  }

  // The Op a head stands for (failures placed at the current frames).
  OpPtr resolve(const Term& head_in) {
    const std::size_t depth = frames_.size();
    const Term& head = s_.walk(head_in);
    switch (head.kind()) {
      case TermKind::Op: return head.op();
      case TermKind::OpPattern:
      case TermKind::String: {
        const std::string name(op_head_name(head));
        if (!o_.registry)
          fail(depth, -1,
               fmt::format("`{}` names an op, but no op registry was given to build it",
                           to_string(head)));
        Props params;
        if (head.kind() == TermKind::OpPattern) {
          for (const PropTerm& p : head.op_pattern_props()) {
            const Term value = substitute(p.value, s_);
            auto v = term_to_prop(value);
            if (!v)
              fail(depth, -1,
                   fmt::format("property `{}` of `{}` is `{}`, not a property value", p.name, name,
                               to_string(value)));
            params.push_back({p.name, std::move(*v)});
          }
        }
        try {
          return o_.op_cache ? o_.op_cache->get(*o_.registry, name, params)
                             : o_.registry->make(name, params);
        } catch (const Error& e) {
          fail(depth, -1, e.what());
        }
      }
      case TermKind::Var: fail(depth, -1, fmt::format("the op `{}` is not bound", to_string(head)));
      default: fail(depth, -1, fmt::format("`{}` is not an op", to_string(head)));
    }
  }

  void visit(const Term& t_in) {
    const std::size_t depth = frames_.size();
    bool via_var = false;
    const Term* t = &t_in;
    while (t->is_var()) {
      const Term* next = s_.find(*t);
      if (!next) fail(depth, -1, fmt::format("`{}` is not bound", to_string(*t)));
      t = next;
      via_var = true;
    }
    if (t->is_graph()) {
      results_.emplace_back(t->as_graph_var());
      return;
    }
    if (is_literal(*t)) {
      results_.emplace_back(*t);
      return;
    }
    const bool remember =
        t->is_heap() && (via_var || t->node()->rc.load(std::memory_order_relaxed) > 1);
    if (remember) {
      auto it = memo_.find(t->bits());
      if (it != memo_.end()) {
        results_.emplace_back(it->second);
        return;
      }
    }
    Frame f;
    f.base = results_.size();
    f.args_begin = args_.size();
    f.key = remember ? t->bits() : 0;
    if (t->is_compound() && !t->is_tuple()) {
      f.op = resolve(t->head());
      for (const Term& a : t->args()) args_.push_back(&a);
    } else if (t->is_pair()) {
      // The list form (head arg…).
      f.op = resolve(t->car());
      const Term* c = &s_.walk(t->cdr());
      while (c->is_pair()) {
        args_.push_back(&c->car());
        c = &s_.walk(c->cdr());
      }
      if (!c->is_nil())
        fail(depth, -1,
             fmt::format("`{}` is not a proper list of arguments", to_string(substitute(*t, s_))));
    } else {
      fail(depth, -1,
           fmt::format("`{}` ({}) is not a graph value", to_string(*t), term_kind_name(t->kind())));
    }
    f.args_end = args_.size();
    frames_.push_back(std::move(f));
  }

  // Builds the node of the top frame from its children's results.
  Var finish() {
    const Frame& f = frames_.back();
    const std::size_t depth = frames_.size() - 1;  // the frames above this one
    const std::size_t n = f.args_end - f.args_begin;
    std::optional<DType> dt;
    for (std::size_t i = 0; i < n && !dt; ++i)
      if (auto* v = std::get_if<Var>(&results_[f.base + i]))
        if (const TensorType* tt = (*v)->tensor_type()) dt = tt->dtype();
    boost::container::small_vector<Var, 8> inputs;
    for (std::size_t i = 0; i < n; ++i) {
      Item& item = results_[f.base + i];
      if (auto* v = std::get_if<Var>(&item)) {
        inputs.push_back(*v);
      } else {
        const Term& lit = std::get<Term>(item);
        const DType fallback = o_.literal_dtype.value_or(default_dtype(lit));
        inputs.push_back(constant(lit, dt ? *dt : fallback, depth, static_cast<long>(i)));
      }
    }
    try {
      ApplyRef node = f.op->make_node(std::span<const Var>(inputs.data(), inputs.size()));
      return node->default_output();
    } catch (const Error& e) {
      fail(depth, -1, fmt::format("`{}` refused its inputs: {}", f.op->to_string(), e.what()));
    }
  }

  const Substitution& s_;
  const GraphBuildOptions& o_;
  // Inline room for the usual right side, so that building one allocates
  // nothing but its nodes.
  boost::container::small_vector<Frame, 8> frames_;
  boost::container::small_vector<const Term*, 16> args_;
  boost::container::small_vector<Item, 16> results_;
  std::unordered_map<std::uint64_t, Var> memo_;
};

}  // namespace

OpPtr OpCache::get(const OpRegistry& registry, std::string_view name, const Props& params) {
  std::size_t h = std::hash<std::string_view>()(name);
  for (const Prop& p : params)
    h = h * 1000003u ^ (std::hash<std::string>()(p.name) + hash_prop_value(p.value));
  {
    const std::lock_guard lock(mutex_);
    auto [it, end] = entries_.equal_range(h);
    for (; it != end; ++it)
      if (it->second.name == name && it->second.params == params) return it->second.op;
  }
  // Built outside the lock: a factory may be slow, and two threads building
  // the same Op get equal Ops (the first one kept is returned to both later).
  OpPtr op = registry.make(name, params);
  const std::lock_guard lock(mutex_);
  auto [it, end] = entries_.equal_range(h);
  for (; it != end; ++it)
    if (it->second.name == name && it->second.params == params) return it->second.op;
  entries_.emplace(h, Entry{std::string(name), params, op});
  return op;
}

std::size_t OpCache::size() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

GraphResult reify_to_graph(const Term& t, const Substitution& s, const GraphBuildOptions& options) {
  if (!t) return {Var(), "the null term is not a graph value"};
  try {
    return {Builder(s, options).run(t), {}};
  } catch (const BuildFailure& f) {
    return {Var(), f.why};
  }
}

}  // namespace rw
