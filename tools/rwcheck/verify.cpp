// rwcheck verify: random inputs that make each rule apply, both sides run,
// results compared with a dtype-aware tolerance, counterexamples shrunk.
#include "tools/rwcheck/verify.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "engine/compile/function.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/type.hpp"
#include "engine/rewrite/context.hpp"
#include "runtime/rng.hpp"

namespace rw::check {

namespace {

// Type candidates per attempt, and value trials per candidate that applies.
constexpr std::size_t kAttemptsPerTrial = 20;
constexpr std::size_t kValuesPerCandidate = 5;
constexpr std::size_t kShrinkBudget = 300;
constexpr std::int64_t kMaxExtent = 3;
constexpr double kSpecialValues[] = {0.0, 1.0, -1.0, 2.0, 0.5};

/// Thrown while building a candidate: the rule cannot be verified at all.
struct Unverifiable {
  std::string why;
};

/// One way of making the rule's left side: a graph variable or constant per
/// tensor variable, a value per parameter variable, and what was built.
struct Candidate {
  std::vector<Var> vars;                         // by VarId; null for parameters
  std::vector<std::optional<PropValue>> params;  // by VarId
  std::vector<Var> inputs;                       // the non-constant tensor variables
  std::vector<std::string> input_names;
  std::vector<dsl::ValueAssumption> input_assumed;  // by input: where its values are drawn
  std::vector<Var> literals;  // by left-side pattern node; null elsewhere
  Var lhs;
  Var rhs;
};

DType random_dtype(Rng& rng) {
  static constexpr DType kDtypes[] = {DType::Float64, DType::Float64, DType::Float64,
                                      DType::Float32, DType::Int64,   DType::Int32};
  return kDtypes[rng.next_integer(0, std::size(kDtypes))];
}

double random_value(Rng& rng, DType dtype) {
  if (dtype == DType::Bool) return static_cast<double>(rng.next_integer(0, 2));
  if (rng.next_double() < 0.2)
    return kSpecialValues[rng.next_integer(0, std::size(kSpecialValues))];
  if (is_integer(dtype)) return static_cast<double>(rng.next_integer(-3, 4));
  return std::round((rng.next_double() * 6 - 3) * 100) / 100;
}

Tensor filled(DType dtype, std::span<const std::int64_t> shape,
              const std::function<double(std::size_t)>& value) {
  std::vector<double> v(static_cast<std::size_t>(shape_size(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = value(i);
  return Tensor::from_vector(v, shape).astype(dtype);
}

std::optional<PropValue> param_value(Rng& rng, const dsl::RuleVariable& v) {
  switch (v.param_kind) {
    case ParamKind::Bool:
      return PropValue(rng.next_integer(0, 2) == 1);
    case ParamKind::Int:
      return PropValue(rng.next_integer(-1, 2));
    case ParamKind::Float:
      return PropValue(kSpecialValues[rng.next_integer(0, std::size(kSpecialValues))]);
    case ParamKind::Ints: {
      const std::int64_t pick = rng.next_integer(0, v.param_nullable ? 5 : 4);
      if (pick == 4) return PropValue(std::monostate{});
      static const std::vector<std::int64_t> kTuples[] = {{0}, {1}, {0, 1}, {}};
      return PropValue(kTuples[pick]);
    }
    case ParamKind::DType: {
      static constexpr DType kD[] = {DType::Float64, DType::Float32, DType::Int64};
      return PropValue(kD[rng.next_integer(0, 3)]);
    }
    case ParamKind::String:
      break;
  }
  return std::nullopt;
}

Var literal_var(Rng& rng, const dsl::NumberValue& value) {
  const double x = std::visit([](auto v) { return static_cast<double>(v); }, value);
  switch (rng.next_integer(0, 3)) {
    case 0:
      return dsl::literal_constant(value);
    case 1:
      return Constant::make(Tensor::scalar(x, DType::Float32));
    default:
      return Constant::make(Tensor::scalar(x, DType::Float64));
  }
}

// What the rule assumes about each variable's run-time values: the value
// assumptions of the predicates (`nonzero(x)`, `positive(x)`, user ones) that
// must hold for the whole guard to hold (reached from the root through `and`
// only), intersected per variable.
std::vector<dsl::ValueAssumption> assumed_values(const dsl::CheckedRule& rule) {
  std::vector<dsl::ValueAssumption> out(rule.vars.size());
  if (!rule.guard) return out;
  const auto& nodes = rule.guard->nodes();
  std::vector<std::uint32_t> pending{static_cast<std::uint32_t>(nodes.size() - 1)};
  while (!pending.empty()) {
    const dsl::GuardNode& n = nodes[pending.back()];
    pending.pop_back();
    if (n.kind == dsl::GuardNode::Kind::And)
      pending.insert(pending.end(), n.children.begin(), n.children.end());
    else if (n.kind == dsl::GuardNode::Kind::Predicate && n.predicate->assumes)
      for (const dsl::VarId v : n.tensor_args)
        out[dsl::index_of(v)] = out[dsl::index_of(v)] & *n.predicate->assumes;
  }
  return out;
}

// Whether `v`, once stored as `dtype` (0.5 is 0 as an integer), satisfies `a`.
bool admits_as(const dsl::ValueAssumption& a, DType dtype, double v) {
  if (is_bool(dtype)) return a.admits(v != 0 ? 1 : 0);
  return a.admits(is_integer(dtype) ? std::trunc(v) : v);
}

// Values tried, in order, when random draws keep missing an assumption.
constexpr double kFallbackValues[] = {1.0, 0.5, 2.0, -1.0, -0.5, -2.0, 0.0, 3.0, -3.0};

// A value inside `a` for `dtype` from the fallback list, if there is one.
std::optional<double> fallback_value(const dsl::ValueAssumption& a, DType dtype) {
  for (const double v : kFallbackValues)
    if (admits_as(a, dtype, v)) return v;
  for (const double v : {a.min, a.max, (a.min + a.max) / 2})
    if (std::isfinite(v) && admits_as(a, dtype, v)) return v;
  return std::nullopt;
}

// A random value for an input, inside what the rule assumes of it (the
// candidate was refused by `choose` when nothing is).
double input_value(Rng& rng, DType dtype, const dsl::ValueAssumption& a) {
  for (int tries = 0; tries < 64; ++tries) {
    const double v = random_value(rng, dtype);
    if (admits_as(a, dtype, v)) return v;
  }
  return *fallback_value(a, dtype);
}

// Random types, constants and parameter values for the rule's variables and
// literals; nothing built yet.
Candidate choose(Rng& rng, const dsl::CheckedRule& rule) {
  Candidate c;
  const std::vector<dsl::ValueAssumption> assumed = assumed_values(rule);
  c.vars.resize(rule.vars.size());
  c.params.resize(rule.vars.size());
  for (std::size_t i = 0; i < rule.vars.size(); ++i) {
    const dsl::RuleVariable& v = rule.vars[i];
    if (v.kind == dsl::VarKind::Param) {
      c.params[i] = param_value(rng, v);
      if (!c.params[i])
        throw Unverifiable{
            fmt::format("cannot choose values for the string parameter `{}`", v.name)};
      continue;
    }
    DType dtype = random_dtype(rng);
    // An integer type may hold no value the guard assumes (`0 < x < 1`).
    if (!fallback_value(assumed[i], dtype)) dtype = DType::Float64;
    if (!fallback_value(assumed[i], dtype))
      throw Unverifiable{
          fmt::format("no value satisfies what the guard assumes of `{}`", v.name)};
    StaticShape shape(static_cast<std::size_t>(rng.next_integer(0, 3)));
    const bool constant = rng.next_double() < 0.25;
    for (std::int64_t& d : shape)
      d = (!constant && rng.next_double() < 0.5) ? kUnknownDim
                                                 : rng.next_integer(1, kMaxExtent + 1);
    if (constant) {
      const double special = kSpecialValues[rng.next_integer(0, std::size(kSpecialValues))];
      const bool uniform = rng.next_double() < 0.5;
      c.vars[i] = Constant::make(filled(
          dtype, shape, [&](std::size_t) { return uniform ? special : random_value(rng, dtype); }));
    } else {
      c.vars[i] = Variable::make(TensorType::make(dtype, shape), v.anonymous ? "_" : v.name);
      c.inputs.push_back(c.vars[i]);
      c.input_names.push_back(v.anonymous ? "_" : v.name);
      c.input_assumed.push_back(assumed[i]);
    }
  }
  c.literals.resize(rule.lhs.nodes.size());
  for (std::size_t i = 0; i < rule.lhs.nodes.size(); ++i)
    if (rule.lhs.nodes[i].kind == dsl::PatternNode::Kind::Literal)
      c.literals[i] = literal_var(rng, rule.lhs.nodes[i].literal);
  return c;
}

// Builds the left side from the candidate's choices into `c.lhs`; false when
// make_node refuses them (the types do not fit the ops).
bool build_lhs(Candidate& c, const dsl::CheckedRule& rule, const OpRegistry& ops) {
  std::vector<Var> built(rule.lhs.nodes.size());
  try {
    for (std::size_t i = 0; i < rule.lhs.nodes.size(); ++i) {
      const dsl::PatternNode& n = rule.lhs.nodes[i];
      switch (n.kind) {
        case dsl::PatternNode::Kind::Var:
          built[i] = c.vars[dsl::index_of(n.var)];
          break;
        case dsl::PatternNode::Kind::Literal:
          built[i] = c.literals[i];
          break;
        case dsl::PatternNode::Kind::Apply: {
          OpPtr op = n.op;
          if (!op) {
            Props props;
            for (const dsl::PatternParam& p : n.params)
              props.push_back({p.name, p.value ? *p.value : *c.params[dsl::index_of(*p.var)]});
            op = ops.make(n.op_info->name, props);
          }
          std::vector<Var> in;
          for (const std::uint32_t k : n.inputs) in.push_back(built[k]);
          built[i] = op->make_node(in)->default_output();
          break;
        }
      }
    }
  } catch (const Error&) {
    return false;
  }
  c.lhs = built.back();
  return true;
}

// Applies the rule's rewriter to the left side's root, without changing
// anything, into `c.rhs`; false (with `why` when asked) when it does not apply.
bool build_rhs(Candidate& c, const PatternNodeRewriter& rewriter, std::string* why) {
  FunctionGraph fg(c.inputs, {c.lhs}, /*clone=*/false);
  Apply& root = *c.lhs->owner();
  const RewriteContext silent;
  RewriteResult r = rewriter.transform(fg, root, silent);
  if (!r.applied()) {
    if (why) *why = rewriter.why_not(fg, root).value_or("");
    return false;
  }
  c.rhs = nullptr;
  if (r.by_outputs()) {
    c.rhs = r.outputs().at(c.lhs->index());
  } else {
    for (const auto& [o, n] : r.pairs())
      if (o == c.lhs) c.rhs = n;
  }
  return static_cast<bool>(c.rhs);
}

Function<std::vector<Tensor>> compile_sides(const Candidate& c) {
  try {
    return compile_function(std::vector<In>(c.inputs.begin(), c.inputs.end()),
                            std::vector<Var>{c.lhs, c.rhs});
  } catch (const Error& e) {
    throw Unverifiable{fmt::format("cannot compile the two sides: {}", e.what())};
  }
}

// Extents for the unknown axes, right-aligned as broadcasting aligns them.
std::vector<std::int64_t> runtime_extents(Rng& rng, const Candidate& c) {
  std::vector<std::int64_t> ext(8, 0);
  for (const Var& in : c.inputs) {
    const StaticShape& s = in->tensor_type()->shape();
    for (std::size_t k = 0; k < s.size() && k < ext.size(); ++k) {
      const std::int64_t d = s[s.size() - 1 - k];
      if (d != kUnknownDim && d != 1) ext[k] = d;
    }
  }
  for (std::int64_t& e : ext)
    if (e == 0) e = rng.next_integer(1, kMaxExtent + 1);
  return ext;
}

std::vector<std::int64_t> shape_for(const TensorType& t, const std::vector<std::int64_t>& ext) {
  std::vector<std::int64_t> shape(t.shape().begin(), t.shape().end());
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (shape[k] == kUnknownDim) shape[k] = ext[shape.size() - 1 - k];
  return shape;
}

struct Evaluation {
  Tensor lhs, rhs;
  std::string mismatch;  // empty when the two agree
};

// How close two values of `dtype` must be: |u - v| <= atol + rtol * |v|
// (both zero for integers and bools: exactly equal).
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

Tolerance tolerance_for(DType dtype) {
  if (dtype == DType::Float64) return {1e-7, 1e-9};
  if (dtype == DType::Float32) return {1e-4, 1e-5};
  return {};
}

// The tolerance as the counterexample prints it.
std::string tolerance_text(DType dtype) {
  const Tolerance t = tolerance_for(dtype);
  if (t.rtol == 0 && t.atol == 0) return "compared exactly";
  return fmt::format("tolerance |left - right| <= {} + {} * |right|", t.atol, t.rtol);
}

std::string compare(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype())
    return fmt::format("dtypes differ: {} and {}", dtype_name(a.dtype()), dtype_name(b.dtype()));
  if (!std::equal(a.shape().begin(), a.shape().end(), b.shape().begin(), b.shape().end()))
    return fmt::format("shapes differ: {} and {}", shape_to_string(a.shape()),
                       shape_to_string(b.shape()));
  const Tensor x = a.astype(DType::Float64), y = b.astype(DType::Float64);
  const double* p = x.data<double>();
  const double* q = y.data<double>();
  const Tolerance tol = tolerance_for(a.dtype());
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const double u = p[i], v = q[i];
    if (std::isnan(u) && std::isnan(v)) continue;
    if (u == v) continue;
    if (std::isfinite(u) && std::isfinite(v) && std::abs(u - v) <= tol.atol + tol.rtol * std::abs(v))
      continue;
    auto text = [](double d) { return std::isnan(d) ? std::string("nan") : fmt::format("{}", d); };
    return fmt::format("element {} differs: {} and {}", i, text(u), text(v));
  }
  return {};
}

std::string type_text(const Var& v) {
  return v->type()->to_string();
}

// A tensor's text with its continuation lines indented under the first.
std::string indented(const std::string& text, std::size_t indent) {
  std::string out;
  for (const char ch : text) {
    out += ch;
    if (ch == '\n') out.append(indent, ' ');
  }
  return out;
}

// The dtypes of the inputs, constants and both results, and how the results
// were compared: one line of a counterexample.
std::string dtypes_line(const dsl::CheckedRule& rule, const Candidate& c, const Tensor& lhs,
                        const Tensor& rhs) {
  std::string out = "    dtypes:";
  const char* sep = " ";
  for (std::size_t i = 0; i < rule.vars.size(); ++i) {
    if (!c.vars[i]) continue;
    out += fmt::format("{}{} {}", sep, rule.vars[i].anonymous ? "_" : rule.vars[i].name,
                       dtype_name(c.vars[i]->tensor_type()->dtype()));
    sep = ", ";
  }
  if (*sep == ',') out += ";";
  if (lhs.dtype() == rhs.dtype())
    return out + fmt::format(" both sides {} ({})\n", dtype_name(lhs.dtype()),
                             tolerance_text(lhs.dtype()));
  return out + fmt::format(" left {}, right {} (not compared: the dtypes differ)\n",
                           dtype_name(lhs.dtype()), dtype_name(rhs.dtype()));
}

// The values of each side's top-level subterms (the inputs of its root) on
// `args`: where the two sides' computations part.
std::string subterm_lines(const Candidate& c, const std::vector<Tensor>& args) {
  std::string out;
  for (const auto& [label, side] : {std::pair{"left", c.lhs}, std::pair{"right", c.rhs}}) {
    const std::string head = fmt::format("    {} subterms: ", label);
    const Apply* root = side->owner();
    if (!root) {
      out += head + fmt::format("none (`{}` is {})\n", to_infix(side),
                                side->is_constant() ? "a constant" : "an input");
      continue;
    }
    std::vector<Tensor> values(root->inputs().size());
    try {
      Function<std::vector<Tensor>> f = compile_function(
          std::vector<In>(c.inputs.begin(), c.inputs.end()),
          std::vector<Var>(root->inputs().begin(), root->inputs().end()));
      std::vector<const Tensor*> ptrs;
      for (const Tensor& t : args) ptrs.push_back(&t);
      f.call_into(std::span<const Tensor* const>(ptrs), values.data());
    } catch (const Error& e) {
      out += head + fmt::format("cannot be evaluated: {}\n", e.what());
      continue;
    }
    for (std::size_t k = 0; k < values.size(); ++k) {
      const std::string line = fmt::format("{}{} = ", k == 0 ? head : std::string(head.size(), ' '),
                                           to_infix(root->inputs()[k]));
      out += line + indented(values[k].to_string(), line.size()) + "\n";
    }
  }
  return out;
}

}  // namespace

std::vector<RuleVerdict> verify_rules(const RuleSet& rules, const CheckEnvironment& env,
                                      const VerifyOptions& options, const std::string& only) {
  std::vector<RuleVerdict> out;
  Rng master(options.seed);
  for (const RuleRef& ref : rules.rules()) {
    const dsl::CheckedRule& rule = *ref.rule->rule;
    Rng rng = master.split();
    if (!only.empty() && rule.name != only) continue;
    RuleVerdict verdict;
    verdict.rule = rule.name;
    std::string last_reason;
    std::size_t attempts = 0;
    try {
      while (verdict.trials < options.trials && verdict.kind != RuleVerdict::Kind::Counterexample &&
             attempts++ < options.trials * kAttemptsPerTrial) {
        std::optional<Candidate> c = choose(rng, rule);
        if (!build_lhs(*c, rule, *env.ops)) continue;
        if (!build_rhs(*c, *ref.rule->rewriter, last_reason.empty() ? &last_reason : nullptr))
          continue;
        Function<std::vector<Tensor>> f = compile_sides(*c);
        auto run = [&](const std::vector<Tensor>& args) -> std::optional<Evaluation> {
          std::vector<const Tensor*> ptrs;
          for (const Tensor& t : args) ptrs.push_back(&t);
          std::vector<Tensor> res(2);
          try {
            f.call_into(std::span<const Tensor* const>(ptrs), res.data());
          } catch (const Error& e) {
            last_reason = fmt::format("evaluation failed: {}", e.what());
            return std::nullopt;
          }
          Evaluation ev{res[0], res[1], {}};
          ev.mismatch = compare(res[0], res[1]);
          return ev;
        };
        for (std::size_t k = 0; k < kValuesPerCandidate && verdict.trials < options.trials; ++k) {
          const std::vector<std::int64_t> ext = runtime_extents(rng, *c);
          std::vector<Tensor> args;
          for (std::size_t a = 0; a < c->inputs.size(); ++a) {
            const TensorType& t = *c->inputs[a]->tensor_type();
            const auto shape = shape_for(t, ext);
            args.push_back(filled(t.dtype(), shape, [&](std::size_t) {
              return input_value(rng, t.dtype(), c->input_assumed[a]);
            }));
          }
          std::optional<Evaluation> ev = run(args);
          if (!ev) continue;
          ++verdict.trials;
          if (ev->mismatch.empty()) continue;

          // Shrink: fewer elements along each unknown axis, then simpler values.
          std::size_t budget = kShrinkBudget;
          auto still_fails = [&](const std::vector<Tensor>& cand) {
            if (budget == 0) return false;
            --budget;
            const std::optional<Evaluation> e = run(cand);
            if (!e || e->mismatch.empty()) return false;
            *ev = *e;
            return true;
          };
          for (std::size_t axis = 0; axis < 8; ++axis) {
            for (std::int64_t n = 1; n < kMaxExtent; ++n) {
              std::vector<Tensor> smaller;
              bool changed = false;
              for (std::size_t a = 0; a < args.size(); ++a) {
                const TensorType& t = *c->inputs[a]->tensor_type();
                std::vector<std::int64_t> shape(args[a].shape().begin(), args[a].shape().end());
                const std::size_t rank = shape.size();
                if (axis < rank && t.shape()[rank - 1 - axis] == kUnknownDim &&
                    shape[rank - 1 - axis] > n) {
                  shape[rank - 1 - axis] = n;
                  changed = true;
                }
                const Tensor& old = args[a];
                smaller.push_back(filled(old.dtype(), shape, [&](std::size_t flat) {
                  std::vector<std::int64_t> idx(rank);
                  for (std::size_t k2 = rank; k2-- > 0;) {
                    idx[k2] = static_cast<std::int64_t>(flat) % shape[k2];
                    flat /= static_cast<std::size_t>(shape[k2]);
                  }
                  return old.at(idx);
                }));
              }
              if (changed && still_fails(smaller)) {
                args = std::move(smaller);
                break;
              }
            }
          }
          for (std::size_t a = 0; a < args.size(); ++a) {
            for (std::int64_t i = 0; i < args[a].size(); ++i) {
              std::vector<double> flat;
              const Tensor cur = args[a].astype(DType::Float64);
              flat.assign(cur.data<double>(), cur.data<double>() + cur.size());
              for (const double simple : kSpecialValues) {
                if (flat[static_cast<std::size_t>(i)] == simple) break;
                if (!admits_as(c->input_assumed[a], args[a].dtype(), simple)) continue;
                std::vector<double> v = flat;
                v[static_cast<std::size_t>(i)] = simple;
                std::vector<Tensor> cand = args;
                cand[a] = Tensor::from_vector(v, args[a].shape()).astype(args[a].dtype());
                if (still_fails(cand)) {
                  args = std::move(cand);
                  break;
                }
              }
            }
          }
          // Simpler constants: the same graph with each constant variable
          // made uniform 0, 1, -1, 2 or 0.5, if the rule still applies and
          // the two sides still disagree.
          for (std::size_t i = 0; i < c->vars.size(); ++i) {
            if (!c->vars[i] || !c->vars[i]->is_constant()) continue;
            const Tensor old = c->vars[i]->as_constant()->value();
            bool done = false;
            for (const double simple : kSpecialValues) {
              // A 0-d constant first (it broadcasts like the original), then
              // one of the original's shape.
              for (const bool scalar : {true, false}) {
                if (done || budget == 0) break;
                --budget;
                Candidate simpler = *c;
                simpler.vars[i] =
                    Constant::make(filled(old.dtype(),
                                          scalar ? std::span<const std::int64_t>()
                                                 : std::span<const std::int64_t>(old.shape()),
                                          [&](std::size_t) { return simple; }));
                if (simpler.vars[i]->as_constant()->same_value(*c->vars[i]->as_constant())) {
                  done = true;
                  break;
                }
                if (!build_lhs(simpler, rule, *env.ops) ||
                    !build_rhs(simpler, *ref.rule->rewriter, nullptr))
                  continue;
                Function<std::vector<Tensor>> g = compile_sides(simpler);
                std::swap(f, g);
                const std::optional<Evaluation> e = run(args);
                if (e && !e->mismatch.empty()) {
                  *c = std::move(simpler);
                  *ev = *e;
                  done = true;
                  break;
                }
                std::swap(f, g);
              }
            }
          }
          std::string d = fmt::format("  {}\n", rule.to_string());
          for (std::size_t i = 0; i < rule.vars.size(); ++i) {
            if (rule.vars[i].kind == dsl::VarKind::Param) {
              d +=
                  fmt::format("    {} = {}\n", rule.vars[i].name, format_prop_value(*c->params[i]));
            } else if (c->vars[i]->is_constant()) {
              d += fmt::format("    {}: constant {} = {}\n", rule.vars[i].name,
                               type_text(c->vars[i]), format_constant(*c->vars[i]->as_constant()));
            }
          }
          for (std::size_t a = 0; a < args.size(); ++a) {
            const std::string head =
                fmt::format("    {}: {} = ", c->input_names[a], type_text(c->inputs[a]));
            d += head + indented(args[a].to_string(), head.size()) + "\n";
          }
          for (const auto& [label, var, value] :
               {std::tuple{"left: ", c->lhs, &ev->lhs}, std::tuple{"right:", c->rhs, &ev->rhs}}) {
            const std::string head = fmt::format("    {} {} = ", label, to_infix(var));
            d += head + indented(value->to_string(), head.size()) + "\n";
          }
          d += fmt::format("    {}\n", ev->mismatch);
          d += dtypes_line(rule, *c, ev->lhs, ev->rhs);
          d += subterm_lines(*c, args);
          verdict.kind = RuleVerdict::Kind::Counterexample;
          verdict.details = std::move(d);
          break;
        }
      }
      if (verdict.kind != RuleVerdict::Kind::Counterexample) {
        if (verdict.trials > 0) {
          verdict.kind = RuleVerdict::Kind::Passed;
        } else {
          verdict.details = "no random input made the rule apply";
          if (!last_reason.empty())
            verdict.details += fmt::format(" (last reason: {})", last_reason);
        }
      }
    } catch (const Unverifiable& u) {
      verdict.kind = RuleVerdict::Kind::Skipped;
      verdict.details = u.why;
    }
    out.push_back(std::move(verdict));
  }
  return out;
}

std::string format_verdicts(const std::vector<RuleVerdict>& verdicts) {
  std::string out;
  std::size_t passed = 0, failed = 0, skipped = 0;
  for (const RuleVerdict& v : verdicts) {
    switch (v.kind) {
      case RuleVerdict::Kind::Passed:
        ++passed;
        out += fmt::format("ok        {} ({} trials)\n", v.rule, v.trials);
        break;
      case RuleVerdict::Kind::Counterexample:
        ++failed;
        out += fmt::format("FAILED    {} (counterexample after {} trial{}, shrunk):\n{}", v.rule,
                           v.trials, v.trials == 1 ? "" : "s", v.details);
        break;
      case RuleVerdict::Kind::Skipped:
        ++skipped;
        out += fmt::format("skipped   {}: {}\n", v.rule, v.details);
        break;
    }
  }
  out += fmt::format("{} rule{} verified, {} failed, {} skipped\n", passed, passed == 1 ? "" : "s",
                     failed, skipped);
  return out;
}

}  // namespace rw::check
