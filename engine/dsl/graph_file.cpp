// Graph files: evaluating statements into Variables and Apply nodes.
#include "engine/dsl/graph_file.hpp"

#include <algorithm>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/dsl/detail/params.hpp"
#include "engine/dsl/detail/suggest.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/dsl/operators.hpp"
#include "engine/dsl/parse.hpp"
#include "engine/dsl/resolver.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/random_type.hpp"
#include "engine/graph/sparse_type.hpp"
#include "engine/graph/type.hpp"

namespace rw::dsl {

Var GraphFile::find(std::string_view name) const {
  for (const auto& [n, v] : names)
    if (n == name) return v;
  return nullptr;
}

const GraphDef* GraphFile::find_def(std::string_view name) const {
  for (const GraphDef& d : defs)
    if (d.name == name) return &d;
  return nullptr;
}

FunctionGraph GraphFile::function_graph(bool clone) const {
  return FunctionGraph(inputs, outputs, clone);
}

namespace {

/// The type word of a generator state in graph files.
constexpr std::string_view kRandomGeneratorWord = "rng";

using ast::ExprId;

class GraphBuilder {
 public:
  GraphBuilder(const OpRegistry& ops, const GraphFileOptions& options, const ParsedFile& parsed,
               std::vector<Diagnostic>& out)
      : ops_(ops),
        options_(options),
        f_(parsed.ast),
        src_(parsed.source),
        out_(out),
        syntax_errors_(count_errors(parsed.diagnostics) > 0) {}

  void statement(const ast::Statement& s) {
    std::visit([&](const auto& st) { handle(st); }, s);
  }

  GraphFile finish() {
    GraphFile g;
    g.source = src_;
    g.inputs = std::move(inputs_);
    g.outputs = std::move(outputs_);
    for (const std::string& n : top_.order) g.names.emplace_back(n, top_.defined[n].var);
    for (const std::string& n : def_order_) {
      const Def& d = defs_[n];
      g.defs.push_back({n, d.op, d.span});
    }
    return g;
  }

  bool has_outputs() const { return !outputs_.empty(); }

  /// At the end of the file: a def block still open is an error.
  void finish_blocks() {
    if (block_)
      error(block_->decl->name.span,
            fmt::format("`def {}` is not closed; expected `}}`", block_->decl->name.text));
  }

  /// A name whose statement had a syntax error: uses of it (or calls, for a
  /// def) are not reported again.
  void mark_failed(const std::string& name) { failed_.insert(name); }

 private:
  struct Entry {
    Var var;  // null when the statement defining it failed
    Span span;
  };

  // The names visible in one scope: the file, or one def block.
  struct Scope {
    std::unordered_map<std::string, Entry> defined;
    std::vector<std::string> order;
  };

  // An open def block.
  struct Block {
    const ast::DefDecl* decl = nullptr;
    Scope scope;
    std::vector<Var> inputs;
    std::vector<Var> outputs;
    bool inline_graph = false;
    std::optional<DefSpec::Loop> loop;
    std::size_t errors_at_open = 0;  // out_.size() before the header was checked
  };

  // A def that was built.
  struct Def {
    OpPtr op;
    Span span;
    std::vector<std::string> params;
    std::vector<TypePtr> types;
    std::size_t num_outputs = 0;
  };

  Scope& scope() { return block_ ? block_->scope : top_; }

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

  // Records a definition in the current scope; false (with an error) for a redefinition.
  bool define(const ast::Name& name, Var var) {
    Scope& sc = scope();
    if (auto it = sc.defined.find(name.text); it != sc.defined.end()) {
      Diagnostic d = make_error(src_, name.span, fmt::format("`{}` is defined twice", name.text));
      d.notes.push_back(make_note(src_, it->second.span, "first defined here"));
      out_.push_back(std::move(d));
      return false;
    }
    sc.defined.emplace(name.text, Entry{std::move(var), name.span});
    sc.order.push_back(name.text);
    return true;
  }

  // A variable of the type written, or null (with an error) for an unknown dtype
  // or extents that multiply beyond 2^63 - 1.
  Var typed_variable(const ast::Name& name, const ast::TypeSpec& type) {
    if (TypePtr t = named_type(type)) return Variable::make(std::move(t), name.text);
    if (type.dtype.text == kRandomGeneratorWord || parse_sparse_type_word(type.dtype.text))
      return nullptr;
    std::shared_ptr<const TensorType> t = tensor_type(type);
    return t ? Variable::make(std::move(t), name.text) : nullptr;
  }

  // The types written as a word rather than a dtype: `rng` (a generator
  // state), or null (with an error when the word is one but has extents).
  TypePtr named_type(const ast::TypeSpec& type) {
    if (const auto sparse = parse_sparse_type_word(type.dtype.text)) return sparse_type(type, *sparse);
    if (type.dtype.text != kRandomGeneratorWord) return nullptr;
    if (!type.dims.empty() || type.span.end > type.dtype.span.end) {
      error(type.span, "`rng` (a generator state) takes no extents");
      return nullptr;
    }
    return RandomGeneratorType::make();
  }

  // `csr_f64[?, 3]`: a sparse matrix type, two extents; null (with an error)
  // for another number of extents.
  TypePtr sparse_type(const ast::TypeSpec& type, std::pair<SparseFormat, DType> word) {
    if (type.dims.size() != 2) {
      error(type.span, fmt::format("`{}` (a sparse matrix) takes two extents, as `{}[?, ?]`",
                                   type.dtype.text, type.dtype.text));
      return nullptr;
    }
    StaticShape shape;
    for (const ast::Dim& d : type.dims) shape.push_back(d.extent < 0 ? kUnknownDim : d.extent);
    try {
      return SparseType::make(word.first, word.second, std::move(shape));
    } catch (const TypeError& e) {
      error(type.span, e.what());
      return nullptr;
    }
  }

  // The type written, or null (with an error) as typed_variable.
  std::shared_ptr<const TensorType> tensor_type(const ast::TypeSpec& type) {
    const auto dtype = dtype_word(type.dtype.text);
    if (!dtype) {
      static const std::vector<std::string> kNames = [] {
        std::vector<std::string> v;
        for (DType d : kAllDTypes) {
          v.emplace_back(dtype_short_name(d));
          v.emplace_back(dtype_name(d));
        }
        return v;
      }();
      error(type.dtype.span, fmt::format("unknown dtype `{}`{}", type.dtype.text,
                                         detail::did_you_mean(type.dtype.text, kNames)));
      return nullptr;
    }
    StaticShape shape;
    for (const ast::Dim& d : type.dims) shape.push_back(d.extent < 0 ? kUnknownDim : d.extent);
    try {
      return TensorType::make(*dtype, std::move(shape));
    } catch (const TypeError& e) {  // extents that multiply beyond what can be counted
      error(type.span, e.what());
      return nullptr;
    }
  }

  void handle(const ast::InputDecl& s) {
    if (block_) {
      error({s.span.begin, s.span.begin + 5},
            fmt::format("`input` cannot appear inside `def {}`; a def's inputs are its parameters",
                        block_->decl->name.text));
      return;
    }
    Var v = typed_variable(s.name, s.type);
    if (!v) {
      define(s.name, nullptr);
      return;
    }
    if (define(s.name, v)) inputs_.push_back(std::move(v));
  }

  void handle(const ast::ConstDecl& s) { define(s.name, constant(s)); }

  // The tensor a `const` statement writes, or null (with an error): every
  // extent known, one value per element, each of the dtype's kind and range.
  Var constant(const ast::ConstDecl& s) {
    std::shared_ptr<const TensorType> type = tensor_type(s.type);
    if (!type) return nullptr;
    const StaticShape& shape = type->shape();
    if (std::find(shape.begin(), shape.end(), kUnknownDim) != shape.end()) {
      error(s.type.span, fmt::format("a constant's extents must all be known; `{}` has `?`",
                                     src_->slice(s.type.span)));
      return nullptr;
    }
    const std::int64_t n = shape_size(shape);
    if (static_cast<std::uint64_t>(n) != s.values.size()) {
      error(s.values_span,
            fmt::format("`{}` is `{}`: it needs {} value{}, but {} {} given", s.name.text,
                        src_->slice(s.type.span), n, n == 1 ? "" : "s", s.values.size(),
                        s.values.size() == 1 ? "is" : "are"));
      return nullptr;
    }
    const DType dtype = type->dtype();
    Tensor value = Tensor::empty(dtype, shape);
    bool ok = true;
    visit_dtype(dtype, [&]<class T>() {
      T* out = value.data<T>();
      for (const ast::ConstValue& v : s.values) {
        if (auto x = element<T>(v, dtype)) *out++ = *x;
        else ok = false;
      }
    });
    if (!ok) return nullptr;
    return Constant::make(std::move(value), std::move(type),
                          s.name.text[0] == '%' ? std::string() : s.name.text);
  }

  // One value of a constant as a T of `dtype`, or nullopt (with an error).
  template <class T> std::optional<T> element(const ast::ConstValue& v, DType dtype) {
    const auto refuse = [&](std::string why) -> std::optional<T> {
      error(v.span, fmt::format("`{}` {}", src_->slice(v.span), why));
      return std::nullopt;
    };
    if (dtype == DType::Bool) {
      if (const bool* b = std::get_if<bool>(&v.value)) return static_cast<T>(*b);
      return refuse("is not a bool value: write `true` or `false`");
    }
    if (std::holds_alternative<bool>(v.value))
      return refuse(fmt::format("is a bool, but the constant is `{}`", dtype_short_name(dtype)));
    if (is_float(dtype)) {
      if (const double* d = std::get_if<double>(&v.value)) return static_cast<T>(*d);
      return static_cast<T>(std::get<std::int64_t>(v.value));
    }
    const std::int64_t* i = std::get_if<std::int64_t>(&v.value);
    if (!i) return refuse(fmt::format("is not an integer, but the constant is `{}`",
                                      dtype_short_name(dtype)));
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!std::in_range<T>(*i))
        return refuse(fmt::format("does not fit in `{}`", dtype_short_name(dtype)));
    }
    return static_cast<T>(*i);
  }

  void handle(const ast::DefDecl& s) {
    const std::string& name = s.name.text;
    if (block_) {
      Diagnostic d = make_error(src_, {s.span.begin, s.span.begin + 3},
                                fmt::format("`def {}` cannot be nested in `def {}`; define it "
                                            "before, and call it",
                                            name, block_->decl->name.text));
      d.notes.push_back(make_note(src_, block_->decl->name.span,
                                  fmt::format("`def {}` opens here", block_->decl->name.text)));
      out_.push_back(std::move(d));
      failed_.insert(name);
      return;
    }
    const std::size_t errors_before = out_.size();
    if (!options_.define) {
      error({s.span.begin, s.span.begin + 3},
            "this loader cannot build `def` blocks (no `GraphFileOptions::define`; "
            "`rw::graph_file_options()` builds them as OpFromGraph)");
    } else if (auto it = opened_.find(name); it != opened_.end()) {
      Diagnostic d = make_error(src_, s.name.span, fmt::format("`def {}` is defined twice", name));
      d.notes.push_back(make_note(src_, it->second, "first defined here"));
      out_.push_back(std::move(d));
    } else if (ops_.find(name)) {
      error(s.name.span,
            fmt::format("`{}` is an op; a def needs a name of its own", name));
    }
    opened_.try_emplace(name, s.name.span);
    block_ = Block{};  // not emplace(): clang 14 rejects it for a nested class with NSDMIs
    block_->decl = &s;
    for (const ast::Param& o : s.options) def_option(o);
    if (block_->loop) {
      const DefSpec::Loop& l = *block_->loop;
      if (block_->inline_graph)
        error(s.name.span, fmt::format("`def {}` is a loop body; it cannot be inline", name));
      if (l.sequences + l.states > s.params.size())
        error(s.name.span,
              fmt::format("`def {}` has {} parameter{}, fewer than its {} sequence{} and {} "
                          "state{}",
                          name, s.params.size(), s.params.size() == 1 ? "" : "s", l.sequences,
                          l.sequences == 1 ? "" : "s", l.states, l.states == 1 ? "" : "s"));
    }
    for (const ast::DefParam& p : s.params) {
      Var v = typed_variable(p.name, p.type);
      if (define(p.name, v) && v) block_->inputs.push_back(std::move(v));
    }
    block_->errors_at_open = errors_before;
  }

  // One `key=value` of a def's header.
  void def_option(const ast::Param& o) {
    static const std::vector<std::string> kOptions = {"inline", "sequences", "states",
                                                      "steps",  "until",     "backwards"};
    const std::string& key = o.name.text;
    const bool is_bool = key == "inline" || key == "until" || key == "backwards";
    const bool is_count = key == "sequences" || key == "states" || key == "steps";
    if (!is_bool && !is_count) {
      error(o.name.span, fmt::format("`def` has no option `{}`{}", key,
                                     detail::did_you_mean(key, kOptions)));
      return;
    }
    if (is_bool) {
      if (o.value.kind != ast::ParamValue::Kind::Word ||
          (o.value.text != "true" && o.value.text != "false")) {
        error(o.value.span, fmt::format("`{}` takes `true` or `false`", key));
        return;
      }
      const bool on = o.value.text == "true";
      if (key == "inline") {
        block_->inline_graph = on;
        return;
      }
      DefSpec::Loop& l = block_->loop ? *block_->loop : block_->loop.emplace();
      (key == "until" ? l.until : l.backwards) = on;
      return;
    }
    std::int64_t n = -1;
    if (o.value.kind == ast::ParamValue::Kind::Int) n = o.value.int_value;
    if (n < 0) {
      error(o.value.span, fmt::format("`{}` takes a number of at least 0", key));
      return;
    }
    DefSpec::Loop& l = block_->loop ? *block_->loop : block_->loop.emplace();
    if (key == "sequences") l.sequences = static_cast<std::size_t>(n);
    else if (key == "states") l.states = static_cast<std::size_t>(n);
    else l.steps = n;
  }

  void handle(const ast::BlockEnd& s) {
    if (!block_) {
      error(s.span, "`}` without an open `def` block");
      return;
    }
    Block b = std::move(*block_);
    block_.reset();
    const ast::DefDecl& decl = *b.decl;
    for (const std::string& n : b.scope.order) locals_.try_emplace(n, decl.name.text);
    // An error in the block (or its header) leaves the def unbuilt.
    bool ok = true;
    for (std::size_t k = b.errors_at_open; k < out_.size(); ++k)
      ok = ok && out_[k].severity != Severity::Error;
    if (ok && b.outputs.empty()) {
      if (!syntax_errors_)
        error(decl.name.span,
              fmt::format("`def {}` has no `output`; its block must end with one",
                          decl.name.text));
      ok = false;
    }
    if (!ok) {
      failed_.insert(decl.name.text);
      return;
    }
    Def def;
    def.span = decl.name.span;
    for (const ast::DefParam& p : decl.params) def.params.push_back(p.name.text);
    for (const Var& v : b.inputs) def.types.push_back(v->type());
    // A loop's call passes whole sequences: their elements with a first axis.
    if (b.loop)
      for (std::size_t k = 0; k < b.loop->sequences && k < def.types.size(); ++k)
        if (const TensorType* t = def.types[k]->as_tensor()) {
          StaticShape shape{kUnknownDim};
          shape.insert(shape.end(), t->shape().begin(), t->shape().end());
          def.types[k] = TensorType::make(t->dtype(), std::move(shape));
        }
    def.num_outputs = b.outputs.size() - (b.loop && b.loop->until ? 1 : 0);
    try {
      def.op = options_.define(
          DefSpec{decl.name.text, std::move(b.inputs), std::move(b.outputs), b.inline_graph,
                  b.loop});
    } catch (const std::exception& e) {
      error(decl.name.span, fmt::format("cannot define `{}`: {}", decl.name.text, e.what()));
      failed_.insert(decl.name.text);
      return;
    }
    def_order_.push_back(decl.name.text);
    defs_.emplace(decl.name.text, std::move(def));
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
    std::vector<Var>& outs = block_ ? block_->outputs : outputs_;
    for (ExprId id : s.values)
      if (Var v = eval(id)) outs.push_back(std::move(v));
  }

  void handle(const ast::TupleBinding& s) {
    std::optional<std::vector<Var>> values = eval_all(s.value);
    if (values && values->size() != s.names.size()) {
      error(f_[s.value].span,
            fmt::format("this has {} output{}, but {} name{} bound", values->size(),
                        values->size() == 1 ? "" : "s", s.names.size(),
                        s.names.size() == 1 ? " is" : "s are"));
      values.reset();
    }
    for (std::size_t k = 0; k < s.names.size(); ++k) {
      Var v = values ? (*values)[k] : nullptr;
      if (v && s.names[k].text[0] != '%' && v->name().empty()) v->set_name(s.names[k].text);
      define(s.names[k], std::move(v));
    }
  }

  // Every output of the expression: all those of a call of a def or of a
  // multi-output op, else its one value; nullopt after an error.
  std::optional<std::vector<Var>> eval_all(ExprId id) {
    const ast::Expr& e = f_[id];
    if (const auto* c = std::get_if<ast::Call>(&e.node)) {
      std::vector<Var> outs;
      if (call_outputs(*c, outs, /*all=*/true)) return outs;
      return std::nullopt;
    }
    Var v = eval(id);
    if (!v) return std::nullopt;
    return std::vector<Var>{std::move(v)};
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
    const Scope& sc = scope();
    if (auto it = sc.defined.find(n.name); it != sc.defined.end()) return it->second.var;
    if (failed_.contains(n.name)) return nullptr;
    std::string msg = fmt::format("undefined name `{}`", n.name);
    const std::string hint = detail::did_you_mean(n.name, sc.order);
    if (block_ && top_.defined.contains(n.name))
      msg += fmt::format(" in `def {}`: a def sees only its parameters and its own names; "
                         "pass `{}` as a parameter",
                         block_->decl->name.text, n.name);
    else if (auto local = locals_.find(n.name); !block_ && local != locals_.end())
      msg += fmt::format(" (`{}` is local to `def {}`)", n.name, local->second);
    else if (!hint.empty())
      msg += hint;
    else if (defs_.contains(n.name))
      msg += fmt::format(" (`{0}` is a def: call it, `{0}(…)`)", n.name);
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
    std::vector<Var> outs;
    if (!call_outputs(c, outs, /*all=*/false)) return nullptr;
    if (outs.size() != 1) {
      std::vector<std::string> names;
      for (std::size_t k = 0; k < outs.size(); ++k) names.push_back(fmt::format("o{}", k));
      error(c.callee.span,
            fmt::format("`def {}` has {} outputs; bind them with `({}) = {}(…)`", c.callee.text,
                        outs.size(), fmt::join(names, ", "), c.callee.text));
      return nullptr;
    }
    return outs[0];
  }

  // The outputs of a call of a def (all of them) or of an op (its value; with
  // `all`, every output when it has several and no default one). False after
  // an error.
  bool call_outputs(const ast::Call& c, std::vector<Var>& outs, bool all) {
    std::vector<Var> inputs;
    for (ExprId in : c.inputs) inputs.push_back(eval(in));
    if (auto d = defs_.find(c.callee.text); d != defs_.end())
      return call_def(c, d->second, inputs, outs);
    if (failed_.contains(c.callee.text) && !ops_.find(c.callee.text)) return false;
    if (block_ && c.callee.text == block_->decl->name.text) {
      error(c.callee.span, fmt::format("`def {}` cannot call itself", c.callee.text));
      return false;
    }
    Var v = call_op(c, inputs, all ? &outs : nullptr);
    if (!v) return false;
    if (outs.empty()) outs.push_back(std::move(v));
    return true;
  }

  bool call_def(const ast::Call& c, const Def& def, const std::vector<Var>& inputs,
                std::vector<Var>& outs) {
    const std::string& name = c.callee.text;
    if (!c.params.empty()) {
      error(c.params.front().name.span, fmt::format("`def {}` takes no parameters", name));
      return false;
    }
    if (inputs.size() != def.params.size()) {
      error(c.callee.span,
            fmt::format("`def {}` takes {} input{} ({}), but {} {} given", name, def.params.size(),
                        def.params.size() == 1 ? "" : "s", fmt::join(def.params, ", "),
                        inputs.size(), inputs.size() == 1 ? "is" : "are"));
      return false;
    }
    bool ok = true;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (!inputs[k]) {
        ok = false;
        continue;
      }
      if (!def.types[k]->is_super(*inputs[k]->type())) {
        error(f_[c.inputs[k]].span,
              fmt::format("argument `{}` of `{}` must be `{}`, not `{}`", def.params[k], name,
                          def.types[k]->to_string(), inputs[k]->type()->to_string()));
        ok = false;
      }
    }
    if (!ok) return false;
    try {
      outs = def.op->make_node(inputs)->outputs();
    } catch (const std::exception& e) {
      error(c.callee.span, fmt::format("cannot call `{}`: {}", name, e.what()));
      return false;
    }
    return true;
  }

  // A call of a registered op; `all`, when given, receives every output of a
  // node with several and no default one (otherwise that is an error).
  Var call_op(const ast::Call& c, const std::vector<Var>& inputs, std::vector<Var>* all) {
    const OpInfo* info = ops_.find(c.callee.text);
    if (!info) {
      // A misspelt def is likelier than an op when the file has defs.
      if (std::string hint = detail::did_you_mean(c.callee.text, def_order_); !hint.empty())
        error(c.callee.span, fmt::format("unknown op or def `{}`{}", c.callee.text, hint));
      else
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
    return build(*info, *slots, inputs, c.callee.span, all);
  }

  // Builds the Op (once per distinct name and parameters) and applies it.
  Var build(const OpInfo& info, const std::vector<detail::ParamSlot>& slots,
            const std::vector<Var>& inputs, Span at, std::vector<Var>* all = nullptr) {
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
    // A tuple binding names every output, a default one or not.
    if (node->num_outputs() != 1 && (all || !op->default_output())) {
      if (all) {
        *all = node->outputs();
        return all->front();
      }
      error(at, fmt::format("op `{}` has {} outputs and no default one; a graph file uses the "
                            "value of each call",
                            info.name, node->num_outputs()));
      return nullptr;
    }
    return node->default_output();
  }

  const OpRegistry& ops_;
  const GraphFileOptions& options_;
  const ast::File& f_;
  SourcePtr src_;
  std::vector<Diagnostic>& out_;
  bool syntax_errors_;
  Scope top_;
  std::optional<Block> block_;
  std::unordered_map<std::string, Def> defs_;
  std::vector<std::string> def_order_;
  // Every def opened, built or not, and where its name is written.
  std::unordered_map<std::string, Span> opened_;
  // Names bound inside def blocks, and the first def binding each.
  std::unordered_map<std::string, std::string> locals_;
  std::vector<Var> inputs_;
  std::vector<Var> outputs_;
  std::unordered_map<std::string, OpPtr> ops_cache_;
  std::unordered_set<std::string> failed_;
};

LoadResult<GraphFile> build_graph(SourcePtr src, const OpRegistry& ops,
                                  const GraphFileOptions& options) {
  ParsedFile parsed = parse(std::move(src));
  LoadResult<GraphFile> out;
  GraphBuilder builder(ops, options, parsed, out.diagnostics);
  out.diagnostics = std::move(parsed.diagnostics);
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
  if (errors < kMaxErrorsPerFile) builder.finish_blocks();
  if (count_errors(out.diagnostics) == 0 && !builder.has_outputs()) {
    const auto end = static_cast<std::uint32_t>(parsed.source->text().size());
    out.diagnostics.push_back(
        make_error(parsed.source, {end, end}, "a graph file needs at least one `output`"));
  }
  if (count_errors(out.diagnostics) == 0) out.value = builder.finish();
  return out;
}

}  // namespace

LoadResult<GraphFile> check_graph(const std::filesystem::path& path, const OpRegistry& ops,
                                  const GraphFileOptions& options) {
  std::string why;
  auto text = read_file(path, why);
  if (!text) {
    LoadResult<GraphFile> out;
    out.diagnostics.push_back(make_error(
        nullptr, {}, fmt::format("cannot load graph file `{}`: {}", path.string(), why)));
    return out;
  }
  return build_graph(SourceFile::make(path.string(), std::move(*text)), ops, options);
}

LoadResult<GraphFile> check_graph_text(std::string name, std::string text, const OpRegistry& ops,
                                       const GraphFileOptions& options) {
  return build_graph(SourceFile::make(std::move(name), std::move(text)), ops, options);
}

GraphFile load_graph(const std::filesystem::path& path, const OpRegistry& ops,
                     const GraphFileOptions& options) {
  return check_graph(path, ops, options).take();
}

GraphFile load_graph_text(std::string name, std::string text, const OpRegistry& ops,
                          const GraphFileOptions& options) {
  return check_graph_text(std::move(name), std::move(text), ops, options).take();
}

}  // namespace rw::dsl
