// rw::function compiles with the default mode (the standard rules) unless
// given another mode, and the rewritten function computes the same values.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "engine/dsl/rule_registration.hpp"
#include "rw/rewrite.hpp"
#include "rw/rules.hpp"
#include "support/graph_eval.hpp"

namespace {

std::set<std::string> op_names(const rw::FunctionGraph& fg) {
  std::set<std::string> names;
  for (const rw::Apply* node : fg.toposort()) names.insert(std::string(node->op().name()));
  return names;
}

}  // namespace

TEST_CASE("rw::function rewrites log(1 + exp(x)) into softplus by default", "[rw]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = rw::log(1.0 + rw::exp(x));
  auto f = rw::function({x}, y);
  CHECK(op_names(f.fgraph()) == std::set<std::string>{"softplus"});

  auto plain = rw::function({x}, y, {}, rw::Mode::none(rw::standard_db()));
  CHECK(op_names(plain.fgraph()) == std::set<std::string>{"add", "exp", "log"});

  rw::Rng rng(3);
  for (int draw = 0; draw < 5; ++draw) {
    const rw::Tensor a = rng.uniform({64}, -30.0, 30.0);
    CHECK(rw::testing::close_for_dtype(f(a), plain(a)));
  }
  // Where the original overflows, softplus does not: that is why it exists.
  const rw::Tensor big = rw::Tensor::from({800.0});
  CHECK(f(big).item<double>() == 800.0);
  CHECK(std::isinf(plain(big).item<double>()));
}

TEST_CASE("rw::function takes a mode per call", "[rw]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = rw::log(1.0 + rw::exp(x * 1.0));
  // Without stabilize, canonicalize still removes `* 1` (and without fusion
  // the ops stay apart).
  auto no_stabilize =
      rw::function({x}, {y}, {}, rw::default_mode().excluding({"stabilize", "fusion"}));
  CHECK(rw::to_infix(no_stabilize.fgraph().outputs()[0]).find("softplus") == std::string::npos);
  CHECK(op_names(no_stabilize.fgraph()) == std::set<std::string>{"add", "exp", "log"});

  auto fast_compile = rw::function({x}, {y}, {}, rw::Mode::named("fast_compile", rw::standard_db()));
  CHECK(op_names(fast_compile.fgraph()) == std::set<std::string>{"add", "exp", "log"});

  auto fast_run = rw::function({x}, {y}, {}, rw::Mode::named("fast_run", rw::standard_db()));
  CHECK(op_names(fast_run.fgraph()) == std::set<std::string>{"softplus"});

  const rw::Tensor a = rw::Tensor::from({-1.0, 0.0, 2.0});
  const auto [want] = no_stabilize(a);
  const auto [got] = fast_run(a);
  CHECK(rw::testing::close_for_dtype(got, want));
}

TEST_CASE("rw::function refuses a mode and options.rewrite together", "[rw]") {
  const rw::Var x = rw::vector("x");
  rw::FunctionOptions options;
  options.rewrite = [](rw::FunctionGraph&) {};
  CHECK_THROWS_WITH(rw::function({x}, rw::exp(x), options, rw::default_mode()),
                    Catch::Contains("both a mode and `options.rewrite`"));
  // options.rewrite alone replaces the default mode.
  auto f = rw::function({x}, rw::log(1.0 + rw::exp(x)), options);
  CHECK(op_names(f.fgraph()) == std::set<std::string>{"add", "exp", "log"});
}

TEST_CASE("standard_db is built once and default_mode runs fast_run over it", "[rw]") {
  CHECK(rw::standard_db() == rw::standard_db());
  CHECK(rw::default_mode().db() == rw::standard_db());
  CHECK(rw::default_mode().name() == rw::Mode::fast_run(rw::standard_db()).name());
  const auto names = rw::standard_db()->selected_names(rw::default_mode().query());
  CHECK(std::find(names.begin(), names.end(), "stabilize/softplus_from_log_left") != names.end());
  CHECK(std::find(names.begin(), names.end(), "canonicalize/mul_one_right") != names.end());
  CHECK(std::find(names.begin(), names.end(), "elemwise_fusion") != names.end());
  CHECK(std::find(names.begin(), names.end(), "insert_inplace") != names.end());
}

TEST_CASE("the default mode fuses elementwise chains and still computes the same", "[rw]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = rw::vector("y");
  const rw::Var z = rw::tanh(x * y + 1.0) - rw::exp(-x) / (1.0 + y * y);
  auto fused = rw::function({x, y}, {z});
  auto plain = rw::function({x, y}, {z}, {}, rw::Mode::none(rw::standard_db()));
  CHECK(op_names(fused.fgraph()) == std::set<std::string>{"composite"});
  const std::int64_t four[] = {4};
  const rw::Tensor a = rw::Tensor::from_vector(std::vector<double>{-1.5, 0, 0.25, 2}, four);
  const rw::Tensor b = rw::Tensor::from_vector(std::vector<double>{3, -0.5, 1, 0}, four);
  CHECK(rw::allclose(fused(a, b)[0], plain(a, b)[0], 1e-12, 1e-12));
}

namespace {
/// A mode whose pipeline holds a looping pair, exp(x) -> log(x) -> exp(x).
rw::Mode looping_mode() {
  using namespace rw;
  auto there = make_node_rewriter(
      "exp_to_log", {"exp"},
      [](FunctionGraph&, Apply& n, const RewriteContext&) {
        return RewriteResult::replace_output(rw::log(n.input(0)));
      },
      0);
  auto back = make_node_rewriter(
      "log_to_exp", {"log"},
      [](FunctionGraph&, Apply& n, const RewriteContext&) {
        return RewriteResult::replace_output(rw::exp(n.input(0)));
      },
      0);
  auto loop = std::make_shared<EquilibriumRewriter>("looping", std::vector{there, back});
  return Mode::none(standard_db()).registering(loop, 1);
}
}  // namespace

TEST_CASE("rw::function reports a rewrite pipeline that stopped early", "[rw]") {
  const rw::Var x = rw::vector("x");
  std::vector<std::string> heard;
  rw::FunctionOptions options;
  options.on_rewrite_stop = [&](const std::string& problems) { heard.push_back(problems); };
  auto f = rw::function({x}, rw::exp(x), options, looping_mode());
  REQUIRE(heard.size() == 1);
  CHECK_THAT(heard[0], Catch::Contains("looping: rewriting did not settle") &&
                           Catch::Contains("`exp_to_log`") && Catch::Contains("`log_to_exp`"));

  // A hook that throws refuses to compile.
  options.on_rewrite_stop = [](const std::string& problems) { throw rw::Error(problems); };
  CHECK_THROWS_WITH(rw::function({x}, rw::exp(x), options, looping_mode()),
                    Catch::Contains("rewriting did not settle"));

  // A pipeline that finishes says nothing.
  heard.clear();
  options.on_rewrite_stop = [&](const std::string& problems) { heard.push_back(problems); };
  auto g = rw::function({x}, rw::log(1.0 + rw::exp(x)), options);
  CHECK(heard.empty());
}

TEST_CASE("alloc refuses extents whose product overflows, at run time and in types", "[rw]") {
  const rw::Var n = rw::scalar("n", rw::DType::Int64);
  const rw::Var m = rw::scalar("m", rw::DType::Int64);
  const rw::Var a = rw::alloc(1.0, {n, m});
  auto f = rw::function({n, m}, {a, rw::sum(a)});
  const std::int64_t huge = (std::int64_t{1} << 62) + 1;
  const std::int64_t big = std::int64_t{1} << 32;
  CHECK_THROWS_AS(f(rw::Tensor::scalar(std::int64_t{4}), rw::Tensor::scalar(huge)), rw::Error);
  CHECK_THROWS_WITH(f(rw::Tensor::scalar(std::int64_t{4}), rw::Tensor::scalar(huge)),
                    Catch::Contains("too many elements"));
  CHECK_THROWS_WITH(f(rw::Tensor::scalar(big), rw::Tensor::scalar(big)),
                    Catch::Contains("too many elements"));
  // What fits still runs.
  const auto [t, s] = f(rw::Tensor::scalar(std::int64_t{2}), rw::Tensor::scalar(std::int64_t{3}));
  CHECK(t.size() == 6);
  CHECK(s.item<double>() == 6.0);
  // Constant extents give a static type, which is refused the same way.
  CHECK_THROWS_WITH(rw::alloc(1.0, {std::int64_t{4}, huge}), Catch::Contains("too many elements"));
}

TEST_CASE("integer constants stay exact end to end", "[rw]") {
  const std::int64_t odd = (std::int64_t{1} << 53) + 1;  // not a double
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  CHECK(rw::constant(odd)->as_constant()->value().item<std::int64_t>() == odd);
  CHECK(rw::constant(max)->as_constant()->value().item<std::int64_t>() == max);
  // Printed as they are, not through double (INT64_MAX printed as INT64_MIN).
  CHECK(rw::to_infix(rw::constant(odd)) == "9007199254740993");
  CHECK(rw::to_infix(rw::constant(max)) == "9223372036854775807");
  CHECK(rw::to_infix(rw::constant(min)) == "-9223372036854775808");
  // A number meeting an int64 variable.
  const rw::Var x = rw::scalar("x", rw::DType::Int64);
  auto f = rw::function({x}, x + odd, {}, rw::Mode::none(rw::standard_db()));
  CHECK(f(rw::Tensor::scalar(std::int64_t{0})).item<std::int64_t>() == odd);
  auto g = rw::function({x}, odd - x, {}, rw::Mode::none(rw::standard_db()));
  CHECK(g(rw::Tensor::scalar(std::int64_t{1})).item<std::int64_t>() == odd - 1);
  // A large integer next to a small integer type still picks a type that holds it.
  const rw::Var i8 = rw::scalar("i", rw::DType::Int8);
  CHECK((i8 + odd)->tensor_type()->dtype() == rw::DType::Int64);
}

namespace {
// A rule file in the temporary folder.
std::filesystem::path write_rules(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}
}  // namespace

TEST_CASE("make_default_db is a new, mutable copy of the standard database", "[rw]") {
  std::shared_ptr<rw::SequenceDB> db = rw::make_default_db();
  CHECK(db != rw::make_default_db());
  const rw::Mode mode = rw::Mode::fast_run(db);
  CHECK(db->selected_names(mode.query()) ==
        rw::standard_db()->selected_names(rw::default_mode().query()));
  rw::dsl::load_rules_text_into(*db, "mine.rules",
                                "ruleset extra tags(canonicalize, fast_run)\n"
                                "rule cosh_as_exp: cosh(x) => (exp(x) + exp(-x)) / 2\n",
                                rw::standard_registry(), rw::dsl::PredicateRegistry{});
  const auto names = db->selected_names(mode.query());
  CHECK(std::find(names.begin(), names.end(), "canonicalize/cosh_as_exp") != names.end());
  const auto standard = rw::standard_db()->selected_names(rw::default_mode().query());
  CHECK(std::find(standard.begin(), standard.end(), "canonicalize/cosh_as_exp") ==
        standard.end());
}

TEST_CASE("default_mode_with_rules: the default pipeline plus rule files, in one call", "[rw]") {
  const auto rules = write_rules("rw_cosh_as_exp.rules",
                                 "ruleset extra tags(canonicalize, fast_run)\n"
                                 "rule cosh_as_exp: cosh(x) => (exp(x) + exp(-x)) / 2\n");
  auto x = rw::vector("x", rw::f64);
  const rw::Var y = rw::cosh(x);
  rw::FunctionGraph plain({x}, {y}), mine({x}, {y});
  rw::default_mode().rewrite(plain);
  rw::default_mode_with_rules(rules).rewrite(mine);
  CHECK(rw::to_infix(plain.outputs()[0]).find("cosh") != std::string::npos);
  CHECK(rw::to_infix(mine.outputs()[0]).find("cosh") == std::string::npos);
  CHECK(rw::to_infix(mine.outputs()[0]).find("exp") != std::string::npos);
  rw::Function f = rw::function({x}, {y}, {}, rw::default_mode_with_rules(rules));
  const auto [v] = f(rw::Tensor::from({0.0, 1.0, -2.0}));
  CHECK(v.to_string() == rw::Tensor::from({1.0, std::cosh(1.0), std::cosh(-2.0)}).to_string());

  SECTION("a file with errors loads nothing and says where") {
    const auto bad = write_rules("rw_bad.rules", "ruleset extra tags(canonicalize)\n"
                                                 "rule bad: cosh(x) => lgo(x)\n");
    try {
      rw::default_mode_with_rules(std::vector<std::filesystem::path>{rules, bad});
      FAIL("no LoadError");
    } catch (const rw::dsl::LoadError& e) {
      CHECK(std::string(e.what()).find(bad.string() + ":2:22: error: unknown op `lgo`") !=
            std::string::npos);
    }
  }
}

TEST_CASE("the profile counts the floating-point work the Ops report, per node and per class",
          "[rw][profile]") {
  const rw::Var a = rw::matrix("a");
  const rw::Var b = rw::matrix("b");
  auto f = rw::compile_function({a, b}, {rw::exp(rw::dot(a, b))}, {.profile = true});
  const rw::Tensor av = rw::Tensor::ones({20, 30}), bv = rw::Tensor::ones({30, 40});
  f(av, bv);
  f(av, bv);
  const rw::FunctionProfile& p = *f.profile();
  REQUIRE(p.nodes.size() == 2);
  // dot: 2 · 20 · 30 · 40 per call; exp: one per element of its 20 × 40 result.
  CHECK(p.nodes[0].has_flops);
  CHECK(p.nodes[0].flops == 2 * (2.0 * 20 * 30 * 40));
  CHECK(p.nodes[1].has_flops);
  CHECK(p.nodes[1].flops == 2 * (20.0 * 40));
  if (p.nodes[0].seconds > 0) CHECK(p.nodes[0].gflops_per_second() > 0);
  const std::string table = p.summary();
  INFO(table);
  CHECK(table.find("GFLOP/s  class\n") != std::string::npos);
  CHECK(table.find("         -  ") == std::string::npos);  // both Ops report their work
}
