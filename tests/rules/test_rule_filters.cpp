// The filters compiled from the standard rules: on random graphs of the ops
// the rules mention (elementwise arithmetic; matrices, dimshuffles, dot and
// sum), a filter never refuses a node its rule rewrites, and the
// default mode gives the same graph whether the drivers use the filters
// (nobody listens) or not (a trace listens).
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/dsl/rule_compiler.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "rw/rewrite.hpp"
#include "rw/rules.hpp"

namespace {

/// A small deterministic random source for the generators below.
class Picker {
 protected:
  explicit Picker(std::uint64_t seed) : state_(seed) {}
  std::size_t pick(std::size_t n) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((state_ >> 33) % n);
  }

 private:
  std::uint64_t state_;
};

/// Random expressions over x, y (vectors), s (a 0-d tensor) and constants,
/// written in the graph language, so that the left sides of the rules occur
/// often: small literals, and the ops the rules are about.
class ExprGen : Picker {
 public:
  explicit ExprGen(std::uint64_t seed) : Picker(seed) {}

  std::string expr(int depth) {
    if (depth == 0 || pick(4) == 0) return leaf();
    static const char* const kUnary[] = {"-",     "exp",  "log",     "log1p",      "expm1",
                                         "sqr",   "sqrt", "abs",     "sigmoid",    "softplus",
                                         "cos",   "cosh", "identity", "reciprocal", "tanh"};
    static const char* const kInfix[] = {" + ", " - ", " * ", " / ", " ** "};
    static const char* const kCall[] = {"maximum", "minimum", "fill"};
    switch (pick(6)) {
      case 0:
      case 1: {
        const char* op = kUnary[pick(std::size(kUnary))];
        return std::string(op) + "(" + expr(depth - 1) + ")";
      }
      case 5: {
        const char* op = kCall[pick(std::size(kCall))];
        return std::string(op) + "(" + expr(depth - 1) + ", " + expr(depth - 1) + ")";
      }
      default: {
        const char* op = kInfix[pick(std::size(kInfix))];
        return "(" + expr(depth - 1) + op + expr(depth - 1) + ")";
      }
    }
  }

 private:
  std::string leaf() {
    static const char* const kLeaves[] = {"x", "y", "s", "x", "y", "0", "1", "-1", "2",
                                          "0.5", "3", "-2", "-0.5", "2.0", "4.0", "1.5"};
    return kLeaves[pick(std::size(kLeaves))];
  }
};

/// Random matrix expressions over m, n (matrices) and v (a vector): the
/// shape and reduction rules' ops — dimshuffles of every order the rules
/// name, dot, sum — and broadcast constants that constant folding turns into
/// matrix constants (for `dot_zero_*`, whose guard asks for a constant).
class MatrixGen : Picker {
 public:
  explicit MatrixGen(std::uint64_t seed) : Picker(seed) {}

  std::string matrix(int depth) {
    if (depth == 0 || pick(4) == 0) return matrix_leaf();
    switch (pick(8)) {
      case 0: return "dot(" + matrix(depth - 1) + ", " + matrix(depth - 1) + ")";
      case 1: return "dimshuffle{order=(1,0)}(" + matrix(depth - 1) + ")";
      case 2: return "dimshuffle{order=(0,1)}(" + matrix(depth - 1) + ")";
      case 3: return "dimshuffle{order=(0,x)}(" + vector(depth - 1) + ")";
      case 4: return "dimshuffle{order=(x,0)}(" + vector(depth - 1) + ")";
      case 5: return "(" + matrix(depth - 1) + " * " + matrix(depth - 1) + ")";
      case 6: return "(" + matrix(depth - 1) + " + " + matrix(depth - 1) + ")";
      default: return "-(" + matrix(depth - 1) + ")";
    }
  }

  std::string vector(int depth) {
    if (depth == 0 || pick(3) == 0) return pick(2) ? "v" : "dimshuffle{order=(0)}(v)";
    switch (pick(5)) {
      case 0: return "sum{axis=(0)}(" + matrix(depth - 1) + ")";
      case 1: return "sum{axis=(1)}(" + matrix(depth - 1) + ")";
      case 2: return "dimshuffle{order=(0)}(" + vector(depth - 1) + ")";
      case 3: return "sum{axis=(0)}(2 * " + matrix(depth - 1) + ")";
      default: return "(" + vector(depth - 1) + " * 3)";
    }
  }

 private:
  std::string matrix_leaf() {
    static const char* const kLeaves[] = {"m", "n", "dimshuffle{order=(x,x)}(0)",
                                          "dimshuffle{order=(x,x)}(1)", "m", "n"};
    return kLeaves[pick(std::size(kLeaves))];
  }
};

/// Checks, for every node of `fg` and every standard rule tracking it, that
/// the rule's filter accepts the node whenever the rule rewrites it.
struct FilterCount {
  std::size_t tried = 0, refused = 0, applied = 0;
  std::set<std::string> fired;
};

void check_filters(rw::FunctionGraph& fg, FilterCount& count) {
  const rw::RewriteContext silent;
  for (rw::Apply* node : fg.toposort()) {
    for (const auto& rule : rw::standard_rules().rules()) {
      const rw::NodeRewriter& r = *rule.rewriter;
      if (!r.tracks().matches(node->op())) continue;
      ++count.tried;
      // What drivers ask: the glance first, then the filter.
      const bool glanced = r.filter().glance().admits(rw::NodeFilter::glance_at(*node));
      const bool full = r.filter().accepts(*node);
      if (!glanced) CHECK_FALSE(full);  // a glance refuses only what the filter refuses
      const bool accepts = glanced && full;
      const bool applies = r.transform(fg, *node, silent).applied();
      INFO("rule `" << r.name() << "` (filter " << r.filter().to_string() << ") on `"
                    << rw::to_infix(node->output(0)) << "`");
      if (applies) {
        CHECK(accepts);
        ++count.applied;
        count.fired.insert(r.name());
      }
      if (!accepts) {
        ++count.refused;
        CHECK_FALSE(applies);
      }
    }
  }
}

std::string graph_text(ExprGen& gen) {
  return "input x f64[?]\ninput y f64[?]\ninput s f64[]\noutput " + gen.expr(4) + "\n";
}

}  // namespace

TEST_CASE("a standard rule's filter never refuses a node the rule rewrites", "[rules]") {
  const rw::OpRegistry& ops = rw::standard_registry();
  ExprGen gen(20261130);
  FilterCount count;
  for (int g = 0; g < 400; ++g) {
    const std::string text = graph_text(gen);
    INFO(text);
    rw::FunctionGraph fg = rw::dsl::load_graph_text("random.graph", text, ops).function_graph();
    check_filters(fg, count);
  }
  // The graphs exercise the filters both ways, over many rules.
  INFO("tried " << count.tried << ", refused " << count.refused << ", applied " << count.applied);
  CHECK(count.refused > count.tried / 2);
  CHECK(count.applied > 100);
  CHECK(count.fired.size() > 25);
}

TEST_CASE("the filters of the shape and reduction rules never refuse what they rewrite",
          "[rules]") {
  const rw::OpRegistry& ops = rw::standard_registry();
  MatrixGen gen(11302026);
  const auto fold = rw::in2out("fold", {std::make_shared<rw::ConstantFolding>()});
  FilterCount count;
  for (int g = 0; g < 300; ++g) {
    const std::string text = "input m f64[?,?]\ninput n f64[?,?]\ninput v f64[?]\noutput " +
                             gen.matrix(4) + "\noutput " + gen.vector(3) + "\n";
    INFO(text);
    rw::FunctionGraph fg = rw::dsl::load_graph_text("random.graph", text, ops).function_graph();
    // Half the graphs with their broadcast constants folded into matrix constants.
    if (g % 2) fold->rewrite(fg);
    check_filters(fg, count);
  }
  INFO("tried " << count.tried << ", refused " << count.refused << ", applied " << count.applied);
  CHECK(count.refused > count.tried / 2);
  // The rules whose filters check Op properties or a guard's constant(…).
  for (const char* name : {"dimshuffle_useless_1d", "dimshuffle_useless_2d", "transpose_transpose",
                           "dot_zero_right", "dot_zero_left", "sum_of_scale_left"})
    CHECK(count.fired.count(name) == 1);
}

TEST_CASE("rule filters compare written properties and a guard's constant(…)", "[rules]") {
  auto filter_of = [](std::string_view name) {
    for (const auto& rule : rw::standard_rules().rules())
      if (rule.rewriter->name() == name) return rule.rewriter->filter().to_string();
    return std::string("no rule ") + std::string(name);
  };
  CHECK(filter_of("dimshuffle_useless_1d") == "dimshuffle/1=dimshuffle{order=(0)}");
  CHECK(filter_of("dot_zero_right") == "dot/2, [1]=const");
  CHECK(filter_of("dot_zero_left") == "dot/2, [0]=const");
  CHECK(filter_of("div_by_constant") == "true_div/2, [1]=const");
  // The standard rules match add and mul operands in place (their mirror
  // images are rules of their own), so both constants are checked.
  CHECK(filter_of("add_scaled_left") ==
        "add/2, [0]:mul/2, [0,0]=const, [1]:mul/2, [1,0]=const, [1,1]==[0,1]");
  // Only a constant(…) every match needs makes a check: not one under `or` or `not`.
  const rw::OpRegistry& ops = rw::standard_registry();
  const rw::dsl::PredicateRegistry predicates;
  const rw::dsl::RuleModule module = rw::dsl::load_rules_text(
      "filters.rules",
      "ruleset filters\n"
      "rule needs:     x / c => x  where float(x) and (constant(c) and value(c) == 1)\n"
      "rule negated:   x / c => x  where not constant(c)\n"
      "rule either:    x / c => x  where constant(c) or float(c)\n",
      ops, predicates);
  auto compiled = [&](std::string_view name) {
    return rw::dsl::compile_rule(*module.find_rule(name), rw::dsl::theory_of(module), ops)
        ->filter()
        .to_string();
  };
  CHECK(compiled("needs") == "true_div/2, [1]=const");
  CHECK(compiled("negated") == "true_div/2");
  CHECK(compiled("either") == "true_div/2");
}

TEST_CASE("the default mode gives the same graph with and without the filters", "[rules]") {
  const rw::OpRegistry& ops = rw::standard_registry();
  const rw::Mode mode = rw::default_mode();
  ExprGen gen(7);
  for (int g = 0; g < 150; ++g) {
    const std::string text = graph_text(gen);
    INFO(text);
    const rw::dsl::GraphFile file = rw::dsl::load_graph_text("random.graph", text, ops);
    rw::FunctionGraph quiet = file.function_graph();
    const rw::PassReport a = mode.rewrite(quiet);
    // A listener makes the drivers call every candidate's transform, for its reason.
    rw::FunctionGraph heard = file.function_graph();
    rw::Trace trace;
    trace.subscribe(std::make_shared<rw::TraceRecorder>(/*attempts=*/true));
    rw::RewriteContext ctx{.trace = &trace};
    const rw::PassReport b = mode.rewrite(heard, ctx);
    CHECK(a.ok() == b.ok());
    CHECK(quiet.num_nodes() == heard.num_nodes());
    CHECK(rw::to_infix(quiet.outputs()[0]) == rw::to_infix(heard.outputs()[0]));
  }
}
