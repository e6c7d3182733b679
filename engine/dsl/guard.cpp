// Guard evaluation and explanation.
#include "engine/dsl/guard.hpp"

#include <array>

#include <algorithm>

#include <fmt/format.h>

#include "engine/dsl/ast.hpp"
#include "engine/dsl/operators.hpp"
#include "support/error.hpp"

namespace rw::dsl {

namespace {

using Value = std::variant<double, DType>;

/// An operand's value, or why it has none.
struct Read {
  std::optional<Value> value;
  std::string why_undefined;
};

// The common value of every element of a constant, if there is one.
Read uniform_value(const Constant& c, const std::string& name) {
  const Tensor t = c.value().contiguous();
  if (t.size() == 0) return {std::nullopt, fmt::format("`{}` is an empty constant", name)};
  const std::int64_t n = t.size();
  const std::optional<double> v = visit_dtype(t.dtype(), [&]<class T>() -> std::optional<double> {
    const T* p = t.data<T>();
    for (std::int64_t i = 1; i < n; ++i)
      if (!(p[i] == p[0])) return std::nullopt;
    return static_cast<double>(p[0]);
  });
  if (!v) return {std::nullopt, fmt::format("the elements of `{}` differ", name)};
  return {*v, {}};
}

bool compare(ast::BinaryOp op, const Value& a, const Value& b) {
  if (std::holds_alternative<DType>(a) || std::holds_alternative<DType>(b)) {
    const bool same = a == b;
    return op == ast::BinaryOp::Eq ? same : op == ast::BinaryOp::Ne ? !same : false;
  }
  const double x = std::get<double>(a), y = std::get<double>(b);
  switch (op) {
    case ast::BinaryOp::Lt:
      return x < y;
    case ast::BinaryOp::Gt:
      return x > y;
    case ast::BinaryOp::Le:
      return x <= y;
    case ast::BinaryOp::Ge:
      return x >= y;
    case ast::BinaryOp::Eq:
      return x == y;
    case ast::BinaryOp::Ne:
      return x != y;
    default:
      return false;
  }
}

std::string format_value(const Value& v) {
  if (const auto* d = std::get_if<DType>(&v)) return std::string(dtype_name(*d));
  return ast::format_number(std::get<double>(v));
}

}  // namespace

CheckedGuard::CheckedGuard(std::vector<GuardNode> nodes, SourcePtr file, std::vector<std::string> var_names)
    : nodes_(std::move(nodes)), file_(std::move(file)), var_names_(std::move(var_names)) {
  if (nodes_.empty()) throw ValueError("CheckedGuard: no nodes");
}

const Var& CheckedGuard::lookup(VarId id, GuardArgs b) const {
  const Var* v = index_of(id) < b.size() ? &b[index_of(id)] : nullptr;
  RW_ASSERT(v && *v, fmt::format("guard `{}` read `{}`, which is not bound to a variable", text(),
                                 var_names_.at(index_of(id))));
  return *v;
}

namespace {

struct OperandReader {
  const std::vector<std::string>& names;

  Read operator()(const GuardOperand& o, const Var& v) const {
    const std::string& name = names.at(index_of(o.var));
    const TensorType* t = v->tensor_type();
    if (!t) return {std::nullopt, fmt::format("`{}` is not a tensor", name)};
    switch (o.kind) {
      case GuardOperand::Kind::DType:
        return {Value{t->dtype()}, {}};
      case GuardOperand::Kind::Rank:
        return {Value{static_cast<double>(t->ndim())}, {}};
      case GuardOperand::Kind::Shape: {
        const auto n = static_cast<std::int64_t>(t->ndim());
        const std::int64_t axis = o.axis < 0 ? o.axis + n : o.axis;
        if (axis < 0 || axis >= n)
          return {std::nullopt, fmt::format("`{}` has rank {}, so no axis {}", name, n, o.axis)};
        const std::int64_t extent = t->shape()[static_cast<std::size_t>(axis)];
        if (extent == kUnknownDim)
          return {std::nullopt, fmt::format("axis {} of `{}` has no static extent", o.axis, name)};
        return {Value{static_cast<double>(extent)}, {}};
      }
      case GuardOperand::Kind::Value: {
        const Constant* c = v->as_constant();
        if (!c) return {std::nullopt, fmt::format("`{}` is not a constant", name)};
        return uniform_value(*c, name);
      }
      default:
        return {};
    }
  }
};

}  // namespace

bool CheckedGuard::eval(std::uint32_t i, GuardArgs b, const FunctionGraph* fg) const {
  const GuardNode& n = nodes_[i];
  switch (n.kind) {
    case GuardNode::Kind::And:
      for (std::uint32_t c : n.children)
        if (!eval(c, b, fg)) return false;
      return true;
    case GuardNode::Kind::Or:
      for (std::uint32_t c : n.children)
        if (eval(c, b, fg)) return true;
      return false;
    case GuardNode::Kind::Not:
      return !eval(n.children[0], b, fg);
    case GuardNode::Kind::Predicate: {
      // The usual one to four arguments stay on the stack: guards run at
      // every structural match.
      std::array<Var, 4> few;
      std::vector<Var> many;
      const std::size_t count = n.tensor_args.size();
      Var* args = few.data();
      if (count > few.size()) {
        many.resize(count);
        args = many.data();
      }
      for (std::size_t k = 0; k < count; ++k) args[k] = lookup(n.tensor_args[k], b);
      return n.predicate->fn(PredicateInput{std::span<const Var>(args, count), n.int_args, fg});
    }
    case GuardNode::Kind::Compare: {
      const OperandReader read{var_names_};
      auto value_of = [&](const GuardOperand& o) -> std::optional<Value> {
        if (o.kind == GuardOperand::Kind::Number) return Value{o.number};
        if (o.kind == GuardOperand::Kind::DTypeLiteral) return Value{o.dtype};
        return read(o, lookup(o.var, b)).value;
      };
      const auto l = value_of(n.lhs);
      if (!l) return false;
      const auto r = value_of(n.rhs);
      return r && compare(n.op, *l, *r);
    }
  }
  return false;
}

std::vector<std::string> CheckedGuard::assumptions() const {
  std::vector<std::string> out;
  for (const GuardNode& n : nodes_)
    if (n.kind == GuardNode::Kind::Predicate && n.predicate && n.predicate->assumes)
      out.push_back(n.predicate->name);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool CheckedGuard::evaluate(GuardArgs bindings, const FunctionGraph* fgraph) const {
  return eval(static_cast<std::uint32_t>(nodes_.size() - 1), bindings, fgraph);
}

std::string CheckedGuard::explain(std::uint32_t i, GuardArgs b, const FunctionGraph* fg) const {
  const GuardNode& n = nodes_[i];
  const std::string_view written = file_->slice(n.span);
  switch (n.kind) {
    case GuardNode::Kind::And:
      for (std::uint32_t c : n.children)
        if (!eval(c, b, fg)) return explain(c, b, fg);
      return {};
    case GuardNode::Kind::Or: {
      std::string out = fmt::format("no alternative of `{}` holds: ", written);
      for (std::size_t k = 0; k < n.children.size(); ++k) {
        if (k) out += "; ";
        out += explain(n.children[k], b, fg);
      }
      return out;
    }
    case GuardNode::Kind::Not:
      return fmt::format("`{}` is false: `{}` holds", written,
                         file_->slice(nodes_[n.children[0]].span));
    case GuardNode::Kind::Predicate: {
      std::string out = fmt::format("`{}` is false", written);
      std::string types;
      for (VarId v : n.tensor_args) {
        types += types.empty() ? " (" : ", ";
        types += fmt::format("`{}` is {}", var_names_.at(index_of(v)),
                             lookup(v, b)->type()->to_string());
      }
      return types.empty() ? out : out + types + ")";
    }
    case GuardNode::Kind::Compare: {
      const OperandReader read{var_names_};
      std::string facts;
      for (const GuardOperand* o : {&n.lhs, &n.rhs}) {
        if (o->kind == GuardOperand::Kind::Number || o->kind == GuardOperand::Kind::DTypeLiteral)
          continue;
        const Read r = read(*o, lookup(o->var, b));
        facts += facts.empty() ? ": " : "; ";
        facts += r.value ? fmt::format("`{}` is {}", file_->slice(o->span), format_value(*r.value))
                         : r.why_undefined;
      }
      return fmt::format("`{}` is false{}", written, facts);
    }
  }
  return {};
}

std::optional<std::string> CheckedGuard::why_false(GuardArgs bindings,
                                            const FunctionGraph* fgraph) const {
  const auto root_index = static_cast<std::uint32_t>(nodes_.size() - 1);
  if (eval(root_index, bindings, fgraph)) return std::nullopt;
  return explain(root_index, bindings, fgraph);
}

}  // namespace rw::dsl
