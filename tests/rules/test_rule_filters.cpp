// The filters compiled from the standard rules: on random graphs of the ops
// the rules mention, a filter never refuses a node its rule rewrites, and the
// default mode gives the same graph whether the drivers use the filters
// (nobody listens) or not (a trace listens).
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "rw/rw.hpp"

namespace {

/// Random expressions over x, y (vectors), s (a 0-d tensor) and constants,
/// written in the graph language, so that the left sides of the rules occur
/// often: small literals, and the ops the rules are about.
class ExprGen {
 public:
  explicit ExprGen(std::uint64_t seed) : state_(seed) {}

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
  std::size_t pick(std::size_t n) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((state_ >> 33) % n);
  }
  std::uint64_t state_;
};

std::string graph_text(ExprGen& gen) {
  return "input x f64[?]\ninput y f64[?]\ninput s f64[]\noutput " + gen.expr(4) + "\n";
}

}  // namespace

TEST_CASE("a standard rule's filter never refuses a node the rule rewrites", "[rules]") {
  const rw::OpRegistry& ops = rw::standard_registry();
  const auto& rules = rw::standard_rules().rules();
  ExprGen gen(20261130);
  const rw::RewriteContext silent;
  std::size_t tried = 0, refused = 0, applied = 0;
  std::set<std::string> fired;
  for (int g = 0; g < 400; ++g) {
    const std::string text = graph_text(gen);
    INFO(text);
    rw::FunctionGraph fg = rw::dsl::load_graph_text("random.graph", text, ops).function_graph();
    for (rw::Apply* node : fg.toposort()) {
      for (const auto& rule : rules) {
        const rw::NodeRewriter& r = *rule.rewriter;
        if (!r.tracks().matches(node->op())) continue;
        ++tried;
        const bool accepts = r.filter().accepts(*node);
        const bool applies = r.transform(fg, *node, silent).applied();
        INFO("rule `" << r.name() << "` (filter " << r.filter().to_string() << ") on `"
                      << rw::to_infix(node->output(0)) << "`");
        if (applies) {
          CHECK(accepts);
          ++applied;
          fired.insert(r.name());
        }
        if (!accepts) {
          ++refused;
          CHECK_FALSE(applies);
        }
      }
    }
  }
  // The graphs exercise the filters both ways, over many rules.
  INFO("tried " << tried << ", refused " << refused << ", applied " << applied);
  CHECK(refused > tried / 2);
  CHECK(applied > 100);
  CHECK(fired.size() > 25);
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
