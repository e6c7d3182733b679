// Graph files: evaluating statements into Variables and Apply nodes.
#include "engine/dsl/graph_file.hpp"

#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/dsl/detail/params.hpp"
#include "engine/dsl/detail/suggest.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/dsl/operators.hpp"
#include "engine/dsl/parse.hpp"
#include "engine/dsl/resolver.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/type.hpp"

namespace rw::dsl {

Var GraphFile::find(std::string_view name) const {
  for (const auto& [n, v] : names)
    if (n == name) return v;
  return nullptr;
}

FunctionGraph GraphFile::function_graph(bool clone) const {
  return FunctionGraph(inputs, outputs, clone);
}

namespace {

using ast::ExprId;

class GraphBuilder {
 public:
  GraphBuilder(const OpRegistry& ops, const ParsedFile& parsed, std::vector<Diagnostic>& out)
      : ops_(ops), f_(parsed.ast), src_(parsed.source), out_(out) {}

  void statement(const ast::Statement& s) {
    std::visit([&](const auto& st) { handle(st); }, s);
  }

  GraphFile finish() {
    GraphFile g;
    g.source = src_;
    g.inputs = std::move(inputs_);
    g.outputs = std::move(outputs_);
    for (const std::string& n : order_) g.names.emplace_back(n, defined_[n].var);
    return g;
  }

  bool has_outputs() const { return !outputs_.empty(); }

  /// A name whose statement had a syntax error: uses of it are not reported again.
  void mark_failed(const std::string& name) { failed_.insert(name); }

 private:
  struct Entry {
    Var var;  // null when the statement defining it failed
    Span span;
  };

  void error(Span span, std::string message) {
    out_.push_back(make_error(src_, span, std::move(message)));
  }

  void rule_only(Span span, std::string_view what) {
    error(span, fmt::format("{} belongs in a rule file, not a graph file", what));
  }
  void handle(const ast::Import& s) { rule_only({s.span.begin, s.span.begin + 6}, "`import`"); }
  void handle(const ast::RulesetDecl& s) {
    rule_only({s.span.begin, s.span.begin + 7}, "`ruleset`");
  }
  void handle(const ast::RuleDecl& s) { rule_only({s.span.begin, s.span.begin + 4}, "`rule`"); }
  void handle(const ast::Declare& s) { rule_only({s.span.begin, s.span.begin + 7}, "`declare`"); }

  // Records a definition; false (with an error) for a redefinition.
  bool define(const ast::Name& name, Var var) {
    if (auto it = defined_.find(name.text); it != defined_.end()) {
      Diagnostic d = make_error(src_, name.span, fmt::format("`{}` is defined twice", name.text));
      d.notes.push_back(make_note(src_, it->second.span, "first defined here"));
      out_.push_back(std::move(d));
      return false;
    }
    defined_.emplace(name.text, Entry{std::move(var), name.span});
    order_.push_back(name.text);
    return true;
  }

  void handle(const ast::InputDecl& s) {
    const auto dtype = dtype_word(s.type.dtype.text);
    if (!dtype) {
      static const std::vector<std::string> kNames = [] {
        std::vector<std::string> v;
        for (DType d : kAllDTypes) {
          v.emplace_back(dtype_short_name(d));
          v.emplace_back(dtype_name(d));
        }
        return v;
      }();
      error(s.type.dtype.span, fmt::format("unknown dtype `{}`{}", s.type.dtype.text,
                                           detail::did_you_mean(s.type.dtype.text, kNames)));
      define(s.name, nullptr);
      return;
    }
    StaticShape shape;
    for (const ast::Dim& d : s.type.dims) shape.push_back(d.extent < 0 ? kUnknownDim : d.extent);
    Var v = Variable::make(TensorType::make(*dtype, std::move(shape)), s.name.text);
    if (define(s.name, v)) inputs_.push_back(std::move(v));
  }

  void handle(const ast::Binding& s) {
    Var v = eval(s.value);
    // Name what the statement computed, not what it merely refers to.
    if (v && s.name.text[0] != '%' && v->name().empty() &&
        !std::holds_alternative<ast::Identifier>(f_[s.value].node))
      v->set_name(s.name.text);
    define(s.name, std::move(v));
  }

  void handle(const ast::OutputDecl& s) {
    for (ExprId id : s.values)
      if (Var v = eval(id)) outputs_.push_back(std::move(v));
  }

  // ----- expressions: a null Var means an error was reported (or a name whose
  // definition failed was used, which is not reported again).

  Var eval(ExprId id) {
    const ast::Expr& e = f_[id];
    return std::visit([&](const auto& n) { return eval_node(n, e); }, e.node);
  }

  Var eval_node(const ast::Number& n, const ast::Expr&) { return literal_constant(n.value); }

  Var eval_node(const ast::Identifier& n, const ast::Expr& e) {
    if (n.sigil == ast::Sigil::Question) {
      error(e.span, fmt::format("`?{}` is a pattern variable; they belong in rule files", n.name));
      return nullptr;
    }
    if (auto it = defined_.find(n.name); it != defined_.end()) return it->second.var;
    if (failed_.contains(n.name)) return nullptr;
    std::string msg = fmt::format("undefined name `{}`", n.name);
    const std::string hint = detail::did_you_mean(n.name, order_);
    if (!hint.empty())
      msg += hint;
    else if (ops_.find(n.name))
      msg += fmt::format(" (`{0}` is an op: call it, `{0}(…)`)", n.name);
    error(e.span, std::move(msg));
    return nullptr;
  }

  Var eval_node(const ast::Unary& n, const ast::Expr& e) {
    if (n.op == ast::UnaryOp::Not) {
      error(e.span, "`not` belongs in the `where` guard of a rule");
      return nullptr;
    }
    // A minus sign before a literal is part of the literal: `-1` is a constant.
    ExprId inner = n.operand;
    bool negative = true;
    while (const auto* u = std::get_if<ast::Unary>(&f_[inner].node)) {
      if (u->op != ast::UnaryOp::Neg) break;
      negative = !negative;
      inner = u->operand;
    }
    if (const auto* num = std::get_if<ast::Number>(&f_[inner].node))
      return literal_constant(negative ? negate(num->value) : num->value);
    Var x = eval(n.operand);
    return apply_operator(kNegOpName, "-", {e.span.begin, e.span.begin + 1}, {x});
  }

  Var eval_node(const ast::Binary& n, const ast::Expr&) {
    Var a = eval(n.lhs);
    Var b = eval(n.rhs);
    const OperatorInfo& info = operator_info(n.op);
    return apply_operator(info.op_name, info.symbol, operator_span(*src_, f_, n), {a, b});
  }

  Var eval_node(const ast::Logical& n, const ast::Expr& e) {
    error(e.span, fmt::format("`{}` belongs in the `where` guard of a rule", symbol(n.op)));
    return nullptr;
  }

  Var apply_operator(std::string_view op_name, std::string_view sym, Span op_span,
                     std::vector<Var> inputs) {
    const OpInfo* info = ops_.find(op_name);
    if (!info) {
      error(op_span,
            fmt::format("operator `{}` stands for op `{}`, which is not registered", sym, op_name));
      return nullptr;
    }
    if (!OpRegistry::arity_ok(*info, inputs.size())) {
      error(op_span, fmt::format("operator `{}` stands for op `{}`, which takes {}", sym, op_name,
                                 detail::inputs_text(*info)));
      return nullptr;
    }
    ast::Call call;
    call.callee = {std::string(op_name), op_span};
    auto slots = detail::check_params(*info, call, false, src_, out_);
    if (!slots) return nullptr;
    return build(*info, *slots, inputs, op_span);
  }

  Var eval_node(const ast::Call& c, const ast::Expr&) {
    std::vector<Var> inputs;
    for (ExprId in : c.inputs) inputs.push_back(eval(in));
    const OpInfo* info = ops_.find(c.callee.text);
    if (!info) {
      error(c.callee.span, fmt::format("unknown op `{}`{}", c.callee.text,
                                       detail::did_you_mean_op(c.callee.text, ops_)));
      return nullptr;
    }
    auto slots = detail::check_params(*info, c, false, src_, out_);
    if (!OpRegistry::arity_ok(*info, inputs.size())) {
      error(c.callee.span, detail::arity_message(*info, inputs.size()));
      return nullptr;
    }
    if (!slots) return nullptr;
    return build(*info, *slots, inputs, c.callee.span);
  }

  // Builds the Op (once per distinct name and parameters) and applies it.
  Var build(const OpInfo& info, const std::vector<detail::ParamSlot>& slots,
            const std::vector<Var>& inputs, Span at) {
    for (const Var& in : inputs)
      if (!in) return nullptr;
    Props props;
    std::string key = info.name;
    for (const detail::ParamSlot& s : slots) {
      props.push_back({s.spec->name, *s.value});
      key += fmt::format("|{}={}", s.spec->name, format_prop_value(*s.value));
    }
    OpPtr& op = ops_cache_[key];
    ApplyRef node;
    try {
      if (!op) op = info.factory(props);
      node = op->make_node(inputs);
    } catch (const std::exception& e) {
      error(at, fmt::format("cannot apply `{}`: {}", info.name, e.what()));
      return nullptr;
    }
    if (node->num_outputs() != 1 && !op->default_output()) {
      error(at, fmt::format("op `{}` has {} outputs and no default one; a graph file uses the "
                            "value of each call",
                            info.name, node->num_outputs()));
      return nullptr;
    }
    return node->default_output();
  }

  const OpRegistry& ops_;
  const ast::File& f_;
  SourcePtr src_;
  std::vector<Diagnostic>& out_;
  std::unordered_map<std::string, Entry> defined_;
  std::vector<std::string> order_;
  std::vector<Var> inputs_;
  std::vector<Var> outputs_;
  std::unordered_map<std::string, OpPtr> ops_cache_;
  std::unordered_set<std::string> failed_;
};

LoadResult<GraphFile> build_graph(SourcePtr src, const OpRegistry& ops) {
  ParsedFile parsed = parse(std::move(src));
  LoadResult<GraphFile> out;
  out.diagnostics = std::move(parsed.diagnostics);
  GraphBuilder builder(ops, parsed, out.diagnostics);
  for (const std::string& name : parsed.failed_names) builder.mark_failed(name);
  const std::size_t syntax_errors = count_errors(out.diagnostics);
  std::size_t errors = syntax_errors;
  for (const ast::Statement& s : parsed.ast.statements) {
    if (errors >= kMaxErrorsPerFile) {
      if (syntax_errors < kMaxErrorsPerFile)
        out.diagnostics.back().notes.push_back(
            make_note(nullptr, {}, fmt::format("too many errors ({}); stopping here", errors)));
      break;
    }
    const std::size_t before = out.diagnostics.size();
    builder.statement(s);
    errors += out.diagnostics.size() - before;
  }
  if (count_errors(out.diagnostics) == 0 && !builder.has_outputs()) {
    const auto end = static_cast<std::uint32_t>(parsed.source->text().size());
    out.diagnostics.push_back(
        make_error(parsed.source, {end, end}, "a graph file needs at least one `output`"));
  }
  if (count_errors(out.diagnostics) == 0) out.value = builder.finish();
  return out;
}

}  // namespace

LoadResult<GraphFile> check_graph(const std::filesystem::path& path, const OpRegistry& ops) {
  std::string why;
  auto text = read_file(path, why);
  if (!text) {
    LoadResult<GraphFile> out;
    out.diagnostics.push_back(make_error(
        nullptr, {}, fmt::format("cannot load graph file `{}`: {}", path.string(), why)));
    return out;
  }
  return build_graph(SourceFile::make(path.string(), std::move(*text)), ops);
}

LoadResult<GraphFile> check_graph_text(std::string name, std::string text, const OpRegistry& ops) {
  return build_graph(SourceFile::make(std::move(name), std::move(text)), ops);
}

GraphFile load_graph(const std::filesystem::path& path, const OpRegistry& ops) {
  return check_graph(path, ops).take();
}

GraphFile load_graph_text(std::string name, std::string text, const OpRegistry& ops) {
  return check_graph_text(std::move(name), std::move(text), ops).take();
}

}  // namespace rw::dsl
