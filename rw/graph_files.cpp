// Graph-file defaults: OpFromGraph for `def` blocks, Scan for loop bodies.
#include "rw/graph_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/compile/op_from_graph.hpp"
#include "engine/compile/scan.hpp"
#include "engine/dsl/ast.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/random_type.hpp"
#include "engine/graph/sparse_type.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"
#include "rw/function.hpp"
#include "rw/registry.hpp"

namespace rw {

namespace {

/// The Op of a loop def: never a node itself; each call builds a Scan whose
/// body is the def's block (make_scan), and returns its node.
class LoopDef final : public Op {
 public:
  explicit LoopDef(dsl::DefSpec spec) : spec_(std::move(spec)) {}
  std::string_view name() const override { return spec_.name; }
  bool equals(const Op& other) const override { return this == &other; }

  ApplyRef make_node(std::span<const Var> inputs) const override {
    const dsl::DefSpec::Loop& l = *spec_.loop;
    const std::size_t n_out = spec_.outputs.size() - (l.until ? 1 : 0);
    if (n_out < l.states)
      throw Error(fmt::format("`{}` has {} state{} but {} output{} for them", spec_.name, l.states,
                              l.states == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s"));
    auto body = [&](std::span<const Var> args) {
      std::unordered_map<const Variable*, Var> map;
      for (std::size_t k = 0; k < spec_.inputs.size(); ++k) map.emplace(spec_.inputs[k].get(), args[k]);
      std::vector<Var> outs = clone_replace(spec_.outputs, map);
      Var until;
      if (l.until) {
        until = outs.back();
        outs.pop_back();
      }
      return ScanStep(std::move(outs), {}, std::move(until));
    };
    std::vector<ScanSequence> seqs(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(l.sequences));
    std::vector<ScanOutput> info(inputs.begin() + static_cast<std::ptrdiff_t>(l.sequences),
                                 inputs.begin() + static_cast<std::ptrdiff_t>(l.sequences + l.states));
    for (std::size_t k = l.states; k < n_out; ++k) info.push_back(ScanOutput::none());
    std::vector<Var> non_seqs(inputs.begin() + static_cast<std::ptrdiff_t>(l.sequences + l.states),
                              inputs.end());
    ScanOptions o;
    o.name = spec_.name;
    o.go_backwards = l.backwards;
    if (l.steps) o.n_steps = integer_constant(*l.steps, DType::Int64);
    o.rewrite = [](FunctionGraph& fg) { default_rewrite()(fg); };
    const ScanResult r = make_scan(body, std::move(seqs), std::move(info), std::move(non_seqs),
                                   std::move(o));
    // The states come first among the node's outputs, then the others: the
    // def's order.
    return ApplyRef(r.outputs.front()->owner());
  }

 private:
  dsl::DefSpec spec_;
};

}  // namespace

dsl::GraphFileOptions graph_file_options() {
  dsl::GraphFileOptions options;
  options.define = [](const dsl::DefSpec& spec) -> OpPtr {
    if (spec.loop) {
      if (spec.outputs.empty()) throw Error("a loop body needs an output");
      return std::make_shared<LoopDef>(spec);
    }
    OpFromGraphOptions o;
    o.name = spec.name;
    o.inline_graph = spec.inline_graph;
    // Looked up when the inner graph is first compiled, so that loading a
    // file does not build the standard rule database.
    o.rewrite = [](FunctionGraph& fg) { default_rewrite()(fg); };
    return op_from_graph(spec.inputs, spec.outputs, std::move(o));
  };
  return options;
}

dsl::GraphFile load_graph_file(const std::filesystem::path& path, const OpRegistry& ops) {
  return dsl::load_graph(path, ops, graph_file_options());
}

dsl::GraphFile load_graph_file(const std::filesystem::path& path) {
  return load_graph_file(path, standard_registry());
}

// ---------------------------------------------------------------------------
// Writing graph files

namespace {

using dsl::is_identifier;
using dsl::is_keyword;

/// Keywords and the words read as values: never a variable's name.
bool reserved_word(std::string_view w) {
  return is_keyword(w) || w == "true" || w == "false" || w == "none" || w == "all";
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + '"';
}

/// A property value as a graph file writes it (strings quoted, `x` and `i`
/// in integer tuples).
std::string prop_text(const Prop& p) {
  if (const auto* s = std::get_if<std::string>(&p.value)) return quoted(*s);
  return format_prop_value(p.name, p.value);
}

std::string number_text(const std::variant<std::int64_t, double>& v) {
  return dsl::ast::format_number(v);
}

/// The elements of a tensor as the language writes them, row-major.
std::vector<std::string> element_texts(const Tensor& value) {
  const Tensor t = value.contiguous();
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(t.size()));
  visit_dtype(t.dtype(), [&]<class T>() {
    const T* p = t.data<T>();
    for (std::int64_t i = 0; i < t.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        out.emplace_back(p[i] ? "true" : "false");
      } else if constexpr (std::is_floating_point_v<T>) {
        // Shortest text that reads back as the same T (float32 included),
        // with a point, so that `-0.0` keeps its sign.
        const T x = p[i];
        if (!std::isfinite(x)) {
          out.push_back(number_text(static_cast<double>(x)));
        } else {
          std::string s = fmt::format("{}", x);
          if (s.find_first_of(".e") == std::string::npos) s += ".0";
          out.push_back(std::move(s));
        }
      } else {
        out.push_back(std::to_string(static_cast<std::int64_t>(p[i])));
      }
    }
  });
  return out;
}

class GraphWriter {
 public:
  explicit GraphWriter(const OpRegistry& ops) : ops_(ops) {}

  std::string write(std::span<const Var> inputs, std::span<const Var> outputs) {
    std::string body;
    Scope top;
    for (const Var& in : inputs) {
      if (!in) throw Error("cannot write the graph: an input is null");
      const std::string name = top.name_for(*in, *this);
      body += fmt::format("input {} {}\n", name, type_text(*in, "input"));
    }
    write_scope(top, inputs, outputs, body, "");
    return defs_ + body;
  }

 private:
  // The names of one scope: the file, or one def block.
  struct Scope {
    std::unordered_map<const Variable*, std::string> names;
    std::unordered_set<std::string> used;
    std::size_t next = 0;

    // A new name for `v`: its own where the language can write it, else `%N`.
    std::string name_for(const Variable& v, GraphWriter& w) {
      std::string n = v.name();
      if (!is_identifier(n) || reserved_word(n) || used.contains(n) || w.ops_.find(n) ||
          w.def_names_.contains(n)) {
        do n = fmt::format("%{}", next++);
        while (used.contains(n));
      }
      used.insert(n);
      w.all_names_.insert(n);
      names.emplace(&v, n);
      return n;
    }
  };

  static std::string describe(const Variable& v) {
    if (!v.name().empty()) return fmt::format("`{}`", v.name());
    if (const Apply* o = v.owner()) return fmt::format("an output of `{}`", o->op().to_string());
    return "a variable";
  }

  // Tensor types, and the types graph files write as a word (`rng`,
  // `csr_f64[?,?]`).
  static std::string type_text(const Variable& v, std::string_view what) {
    if (!v.tensor_type() && !is_random_generator_type(*v.type()) && !as_sparse_type(*v.type()))
      throw Error(fmt::format("cannot write the graph: {} {} has type {}, which graph files "
                              "cannot write",
                              what, describe(v), v.type()->to_string()));
    return v.type()->to_string();
  }

  // The nodes the outputs need, inputs before users (iterative: a graph may be
  // deeper than the stack).
  static std::vector<const Apply*> schedule(std::span<const Var> inputs,
                                            std::span<const Var> outputs) {
    std::unordered_set<const Variable*> roots;
    for (const Var& in : inputs) roots.insert(in.get());
    std::vector<const Apply*> order;
    std::unordered_set<const Apply*> done;
    std::vector<std::pair<const Apply*, std::size_t>> stack;
    const auto visit = [&](const Variable& v) {
      const Apply* o = v.owner();
      if (!o || roots.contains(&v)) {
        if (!roots.contains(&v) && !v.is_constant())
          throw Error(fmt::format(
              "cannot write the graph: it needs {}, which is neither an input nor a constant",
              describe(v)));
        return;
      }
      if (done.insert(o).second) stack.emplace_back(o, 0);
    };
    for (const Var& out : outputs) {
      if (!out) throw Error("cannot write the graph: an output is null");
      visit(*out);
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < node->num_inputs()) {
          const Variable& in = *node->input(next++);
          visit(in);
        } else {
          order.push_back(node);
          stack.pop_back();
        }
      }
    }
    return order;
  }

  void write_scope(Scope& scope, std::span<const Var> inputs, std::span<const Var> outputs,
                   std::string& out, std::string_view indent) {
    const std::vector<const Apply*> nodes = schedule(inputs, outputs);
    // How often each constant is used: a literal is a constant of its own, so
    // only a constant used once may be written as one.
    std::unordered_map<const Variable*, int> uses;
    for (const Apply* n : nodes)
      for (const Var& in : n->inputs())
        if (in->is_constant()) ++uses[in.get()];
    for (const Var& o : outputs)
      if (o->is_constant()) ++uses[o.get()];
    const auto operand = [&](const Var& v, bool as_output) -> std::string {
      if (auto it = scope.names.find(v.get()); it != scope.names.end()) return it->second;
      const Constant* c = v->as_constant();
      if (!as_output && uses[v.get()] == 1)
        if (auto lit = literal(*c)) return *lit;
      const std::string name = scope.name_for(*v, *this);
      out += fmt::format("{}const {} {} = {}\n", indent, name, constant_type(*c),
                         constant_values(*c, indent));
      return name;
    };
    for (const Apply* node : nodes) {
      const std::string callee = callee_of(*node);
      std::vector<std::string> args;
      for (const Var& in : node->inputs()) {
        if (!scope.names.contains(in.get()) && !in->is_constant())
          throw Error(fmt::format("cannot write the graph: {} is used before it is computed",
                                  describe(*in)));
        args.push_back(operand(in, false));
      }
      std::vector<std::string> names;
      for (std::size_t k = 0; k < node->num_outputs(); ++k) {
        const Variable& o = node->output_var(k);
        type_text(o, "the output of");
        names.push_back(scope.name_for(o, *this));
      }
      const std::string lhs =
          names.size() == 1 ? names[0] : fmt::format("({})", fmt::join(names, ", "));
      out += fmt::format("{}{} = {}({})\n", indent, lhs, callee, fmt::join(args, ", "));
    }
    std::vector<std::string> outs;
    for (const Var& o : outputs) outs.push_back(operand(o, true));
    if (!outs.empty()) out += fmt::format("{}output {}\n", indent, fmt::join(outs, ", "));
  }

  // The literal that loads as this constant, if there is one.
  static std::optional<std::string> literal(const Constant& c) {
    const Tensor& t = c.value();
    if (t.ndim() != 0 || !c.name().empty() || !(*c.type() == *TensorType::make(t.dtype(), {})))
      return std::nullopt;
    if (t.dtype() == DType::Float64) return number_text(t.item<double>());
    if (is_integer(t.dtype()) && t.dtype() != DType::UInt8) {
      const auto i = t.item<std::int64_t>();
      if (dsl::int_literal_dtype(i) == t.dtype()) return number_text(i);
    }
    return std::nullopt;
  }

  static std::string constant_type(const Constant& c) {
    const Tensor& t = c.value();
    const auto exact = TensorType::make(t.dtype(), StaticShape(t.shape().begin(), t.shape().end()));
    if (!(*c.type() == *exact))
      throw Error(fmt::format(
          "cannot write the graph: the constant {} has type {}, but its value is {} (a graph "
          "file writes a constant's own type)",
          describe(c), c.type()->to_string(), exact->to_string()));
    return exact->to_string();
  }

  static std::string constant_values(const Constant& c, std::string_view indent) {
    const std::vector<std::string> items = element_texts(c.value());
    if (c.value().ndim() == 0) return items[0];
    // Ten values to a line, the lines after the first indented.
    std::string s = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) s += i % 10 == 0 ? fmt::format(",\n{}  ", indent) : std::string(", ");
      s += items[i];
    }
    return s + "]";
  }

  // How a node's Op is called: a def's name, or the registered name with
  // every property; checked to build back as the same Op.
  std::string callee_of(const Apply& node) {
    const Op& op = node.op();
    if (const auto* ofg = dynamic_cast<const OpFromGraph*>(&op)) return def_of(*ofg);
    if (auto it = callees_.find(&op); it != callees_.end()) return it->second;
    std::string name(op.name());
    const OpInfo* info = ops_.find(name);
    // An Op named by a word of the language is called by an alias.
    if (info && is_keyword(name)) {
      static const std::pair<std::string_view, std::string_view> kAliases[] = {
          {"and", "and_"}, {"or", "or_"}, {"not", "invert"}};
      for (const auto& [word, alias] : kAliases)
        if (name == word && ops_.find(alias) == info) name = alias;
      if (is_keyword(name))
        throw Error(fmt::format("cannot write the graph: op `{}` is named by a word of the "
                                "language and has no alias to call it by",
                                op.to_string()));
    }
    if (!info)
      throw Error(fmt::format("cannot write the graph: op `{}` is not in the registry (register "
                              "it, or its nodes cannot be read back)",
                              op.to_string()));
    const Props& props = op.cached_props();
    OpPtr again;
    try {
      again = ops_.make(name, props);  // by the alias, where there is one
    } catch (const std::exception& e) {
      throw Error(fmt::format("cannot write the graph: op `{}` does not build back from its "
                              "properties: {}",
                              op.to_string(), e.what()));
    }
    if (!again->equals(op))
      throw Error(fmt::format("cannot write the graph: op `{}` builds back from its name and "
                              "properties as `{}`, another op",
                              op.to_string(), again->to_string()));
    std::string text = name;
    if (!props.empty()) {
      std::vector<std::string> items;
      for (const Prop& p : props) items.push_back(p.name + "=" + prop_text(p));
      text += fmt::format("{{{}}}", fmt::join(items, ", "));
    }
    return callees_.emplace(&op, std::move(text)).first->second;
  }

  // The def block of an OpFromGraph, written (with the defs it calls) before
  // the first use; its name.
  std::string def_of(const OpFromGraph& op) {
    if (auto it = defs_written_.find(&op); it != defs_written_.end()) return it->second;
    std::string name(op.name());
    if (!is_identifier(name) || reserved_word(name) || ops_.find(name)) name = "op_from_graph";
    // Distinct from other defs and from the variables named so far.
    const std::string base = name;
    for (std::size_t k = 2; def_names_.contains(name) || all_names_.contains(name); ++k)
      name = fmt::format("{}_{}", base, k);
    std::vector<Var> params(op.inner_inputs().begin(), op.inner_inputs().end());
    params.insert(params.end(), op.shared_inputs().begin(), op.shared_inputs().end());
    const std::span<const Var> outputs = op.inner_outputs();
    Scope scope;
    std::string header;
    for (const Var& p : params) {
      const std::string pn = scope.name_for(*p, *this);
      header += fmt::format("{}{} {}", header.empty() ? "" : ", ", pn, type_text(*p, "parameter"));
    }
    std::string body;
    write_scope(scope, params, outputs, body, "  ");  // writes the defs it calls first
    def_names_.insert(name);
    defs_written_.emplace(&op, name);
    defs_ += fmt::format("def {}({}){} {{\n{}}}\n", name, header,
                         op.is_inline() ? " inline=true" : "", body);
    return name;
  }

  const OpRegistry& ops_;
  std::unordered_map<const Op*, std::string> callees_;
  std::unordered_map<const OpFromGraph*, std::string> defs_written_;
  std::unordered_set<std::string> def_names_;
  std::unordered_set<std::string> all_names_;  // every variable name, in any scope
  std::string defs_;
};

}  // namespace

std::string graph_file_text(std::span<const Var> inputs, std::span<const Var> outputs,
                            const OpRegistry& ops) {
  return GraphWriter(ops).write(inputs, outputs);
}

std::string graph_file_text(const FunctionGraph& fgraph, const OpRegistry& ops) {
  return graph_file_text(fgraph.inputs(), fgraph.outputs(), ops);
}

std::string graph_file_text(const FunctionGraph& fgraph) {
  return graph_file_text(fgraph, standard_registry());
}

void write_graph_file(const FunctionGraph& fgraph, const std::filesystem::path& path,
                      const OpRegistry& ops) {
  const std::string text = graph_file_text(fgraph, ops);
  // Beside the file, then renamed over it: a failed write leaves it as it was.
  std::filesystem::path tmp = path;
  tmp += ".partial";
  const auto fail = [&](const std::string& why) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw Error(fmt::format("cannot write the graph file `{}`: {}", path.string(), why));
  };
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (f) f.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (f) f.close();
    if (!f) fail(std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) fail(ec.message());
}

void write_graph_file(const FunctionGraph& fgraph, const std::filesystem::path& path) {
  write_graph_file(fgraph, path, standard_registry());
}

}  // namespace rw
