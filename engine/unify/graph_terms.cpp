// Property values as terms, literal-constant matching and node views.
#include "engine/unify/graph_terms.hpp"

#include <cmath>

#include "engine/graph/apply.hpp"

namespace rw {

Term prop_to_term(const PropValue& value) {
  struct Visitor {
    Term operator()(std::monostate) const { return Term::none(); }
    Term operator()(bool b) const { return Term::boolean(b); }
    Term operator()(std::int64_t i) const { return Term::integer(i); }
    Term operator()(double d) const { return Term::number(d); }
    Term operator()(const std::string& s) const { return Term::string(s); }
    Term operator()(const std::vector<std::int64_t>& v) const {
      std::vector<Term> items;
      items.reserve(v.size());
      for (std::int64_t x : v) items.push_back(Term::integer(x));
      return tuple(items);
    }
    Term operator()(DType t) const { return Term::dtype(t); }
  };
  return std::visit(Visitor{}, value);
}

std::optional<PropValue> term_to_prop(const Term& term) {
  // Built in place: returning PropValue temporaries trips g++ 12's
  // -Wmaybe-uninitialized under sanitizers.
  std::optional<PropValue> out;
  switch (term.kind()) {
    case TermKind::None: out.emplace(std::in_place_type<std::monostate>); break;
    case TermKind::Bool: out.emplace(std::in_place_type<bool>, term.as_bool()); break;
    case TermKind::Int: out.emplace(std::in_place_type<std::int64_t>, term.as_int()); break;
    case TermKind::Float: out.emplace(std::in_place_type<double>, term.as_float()); break;
    case TermKind::String: out.emplace(std::in_place_type<std::string>, term.as_string()); break;
    case TermKind::DType: out.emplace(std::in_place_type<DType>, term.as_dtype()); break;
    case TermKind::Compound: {
      if (!term.is_tuple()) break;
      std::vector<std::int64_t> items;
      for (const Term& a : term.args()) {
        if (a.kind() != TermKind::Int) return std::nullopt;
        items.push_back(a.as_int());
      }
      out.emplace(std::in_place_type<std::vector<std::int64_t>>, std::move(items));
      break;
    }
    default: break;
  }
  return out;
}

bool literal_matches_constant(const Term& literal, const Constant& c) {
  const Tensor& v = c.value();
  if (v.size() != 1) return false;
  const DType dt = v.dtype();
  switch (literal.kind()) {
    case TermKind::Int: {
      const std::int64_t n = literal.as_int();
      if (is_bool(dt)) return false;
      if (is_integer(dt)) return v.item<std::int64_t>() == n;
      const double d = static_cast<double>(n);
      if (static_cast<std::int64_t>(d) != n) return false;  // not exactly representable
      if (dt == DType::Float32) return static_cast<double>(v.item<float>()) == d;
      return v.item<double>() == d;
    }
    case TermKind::Float: {
      const double x = literal.as_float();
      if (is_bool(dt)) return false;
      if (dt == DType::Float32) return v.item<float>() == static_cast<float>(x);
      if (dt == DType::Float64) return v.item<double>() == x;
      return std::isfinite(x) && std::trunc(x) == x &&
             static_cast<double>(v.item<std::int64_t>()) == x;
    }
    case TermKind::Bool: return is_bool(dt) && v.item<bool>() == literal.as_bool();
    default: return false;
  }
}

namespace detail {
bool is_default_output(const Variable& v) {
  const auto d = v.owner()->op().default_output();
  return d && *d == v.index();
}
}  // namespace detail

Term expand_graph(const Var& v) {
  if (!v || !has_term_view(*v))
    throw TermError("only a variable computed by a node (its only or default output) reads as "
                    "op(inputs…)");
  const Apply* a = v->owner();
  std::vector<Term> args;
  args.reserve(a->num_inputs());
  for (const Var& in : a->inputs()) args.emplace_back(in);
  return compound(Term::op_atom(a->op_ptr()), args);
}

std::string_view op_head_name(const Term& head) {
  switch (head.kind()) {
    case TermKind::Op: return head.op()->name();
    case TermKind::OpPattern: return head.op_pattern_name();
    case TermKind::String: return head.as_string();
    default: return {};
  }
}

}  // namespace rw
