// NanGuard (FunctionOptions::nan_guard): the first node whose output holds a
// NaN, an infinity or a big value is named with its Op, the output, what was
// found and its inputs' statistics; each check can be turned off; arguments
// are checked too; a guarded call that throws changes no shared variable.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <rw/rewrite.hpp>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "support/doc_snippets.hpp"

using rw::NanGuard;
using rw::NanGuardError;
using rw::Tensor;
using rw::Var;

namespace {

/// The default mode without fusion: each elementwise Op stays its own node,
/// so the node a message names is the Op that made the value.
rw::Mode unfused() { return rw::default_mode().excluding({"fusion", "inplace"}); }

rw::FunctionOptions guarded(NanGuard guard = {}) {
  return {.on_unused_input = rw::UnusedInput::Ignore, .nan_guard = guard};
}

/// The message of the NanGuardError `f` throws, or "" when it does not throw one.
template <class F> std::string guard_message(F&& f) {
  try {
    f();
  } catch (const NanGuardError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("NanGuard names the node that made the first infinity, and its inputs", "[nan_guard]") {
  const Var x = rw::vector("x");
  // log(x) is -inf at 0; the exp after it is 0 there, and the sum finite.
  auto f = rw::function({x}, {rw::sum(rw::exp(rw::log(x) * 2.0))}, guarded(), unfused());
  CHECK(f(Tensor::from({1.0, 4.0}))[0].item<double>() == Approx(17.0));

  const std::string m = guard_message([&] { f(Tensor::from({1.0, 0.0, 2.0})); });
  INFO(m);
  REQUIRE(!m.empty());
  CHECK(m.starts_with("NanGuard: node "));
  CHECK(contains(m, "(`log` computing"));
  CHECK(contains(m, "output 0 holds 1 inf of 3 elements (the first, -inf, at index 1)"));
  CHECK(contains(m, "input 0 (`x`): f64[3] min 0 max 2 mean 1"));

  // The same graph unguarded runs through: the value is what IEEE gives.
  auto plain = rw::function({x}, {rw::sum(rw::exp(rw::log(x) * 2.0))}, {}, unfused());
  CHECK(plain(Tensor::from({1.0, 0.0, 2.0}))[0].item<double>() == Approx(5.0));
}

TEST_CASE("NanGuard finds NaN and big values, and each check can be turned off", "[nan_guard]") {
  const Var x = rw::vector("x");
  const Tensor minus_one = Tensor::from({4.0, -1.0});
  auto nan = rw::function({x}, {rw::sqrt(x)}, guarded(), unfused());
  const std::string m = guard_message([&] { nan(minus_one); });
  INFO(m);
  CHECK(contains(m, "(`sqrt` computing"));
  CHECK(contains(m, "output 0 holds 1 NaN of 2 elements (the first, nan, at index 1)"));
  auto nan_allowed = rw::function({x}, {rw::sqrt(x)}, guarded({.nan = false}), unfused());
  CHECK(std::isnan(nan_allowed(minus_one)[0].data<double>()[1]));

  const Tensor thirty = Tensor::from({1.0, 30.0});
  auto big = rw::function({x}, {rw::exp(x)}, guarded(), unfused());
  const std::string b = guard_message([&] { big(thirty); });
  INFO(b);
  CHECK(contains(b, "1 value above 1e+10 in magnitude of 2 elements"));
  CHECK(guard_message([&] { rw::function({x}, {rw::exp(x)}, guarded({.big_bound = 1e14}), unfused())
                                (thirty); })
            .empty());
  CHECK(guard_message([&] { rw::function({x}, {rw::exp(x)}, guarded({.big = false}), unfused())
                                (thirty); })
            .empty());
  auto inf_allowed = rw::function({x}, {rw::log(x)}, guarded({.inf = false}), unfused());
  CHECK(std::isinf(inf_allowed(Tensor::from({0.0}))[0].data<double>()[0]));
}

TEST_CASE("NanGuard checks the arguments, and float32 and strided values", "[nan_guard]") {
  const Var x = rw::vector("x");
  auto f = rw::function({x}, {x * 2.0}, guarded(), unfused());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::string m = guard_message([&] { f(Tensor::from({1.0, nan})); });
  INFO(m);
  CHECK(m.starts_with("NanGuard: argument 0 of the function holds 1 NaN of 2 elements"));
  CHECK(contains(m, "`x` f64[2] min 1 max 1 mean 1 (of the finite values), 1 NaN"));
  auto unchecked = rw::function({x}, {x * 2.0}, guarded({.check_inputs = false}), unfused());
  // The NaN then surfaces where a node makes it.
  CHECK(contains(guard_message([&] { unchecked(Tensor::from({1.0, nan})); }),
                 "(`mul` computing"));

  const Var m32 = rw::matrix("m", rw::DType::Float32);
  auto g = rw::function({m32}, {rw::dimshuffle(rw::log(m32), {1, 0})}, guarded(), unfused());
  const Tensor v = Tensor::from({{1.0f, 2.0f}, {3.0f, 0.0f}});
  const std::string s = guard_message([&] { g(v); });
  INFO(s);
  CHECK(contains(s, "1 inf of 4 elements (the first, -inf, at index 3)"));
  // A transposed view whose infinity is at another flat index.
  auto t = rw::function({m32}, {rw::log(rw::dimshuffle(m32, {1, 0}))}, guarded(), unfused());
  const std::string ts = guard_message([&] { t(v); });
  INFO(ts);
  CHECK(contains(ts, "the first, -inf, at index 3"));
}

TEST_CASE("a call NanGuard stops changes no shared variable", "[nan_guard]") {
  const Var x = rw::vector("x");
  auto state = rw::shared("state", Tensor::from({1.0, 1.0}));
  rw::FunctionOptions options = guarded();
  options.updates = {{state, state + x}};
  auto f = rw::function({x}, {rw::log(state + x)}, options, unfused());
  f(Tensor::from({1.0, 1.0}));
  CHECK(state.get_value().data<double>()[0] == 2.0);
  CHECK_THROWS_AS(f(Tensor::from({-2.0, 0.0})), NanGuardError);
  CHECK(state.get_value().data<double>()[0] == 2.0);
  CHECK(state.get_value().data<double>()[1] == 2.0);
  // Integer outputs are not read.
  const Var i = rw::vector("i", rw::DType::Int64);
  auto ints = rw::function({i}, {i * 2}, guarded(), unfused());
  CHECK(ints(Tensor::from({std::int64_t{1}, std::int64_t{2}}))[0].data<std::int64_t>()[1] == 4);
}

TEST_CASE("docs/debugging.md: NanGuard", "[nan_guard]") {
  // [doc:nan_guard]
  rw::Var x = rw::vector("x");
  rw::Var loss = rw::sum(rw::exp(rw::log(x) * 2.0));
  rw::FunctionOptions options;
  options.nan_guard = rw::NanGuard{};  // NaN, inf and |v| > 1e10 are errors
  rw::Function f = rw::function({x}, {loss}, options,
                                rw::default_mode().excluding({"fusion"}));
  std::string message;
  try {
    f(rw::Tensor::from({1.0, 0.0, 2.0}));
  } catch (const rw::NanGuardError& e) {
    message = e.what();
    // NanGuard: node 1 of 4 (`log` computing `log(x)`) of the function:
    // output 0 holds 1 inf of 3 elements (the first, -inf, at index 1)
    //   input 0 (`x`): f64[3] min 0 max 2 mean 1
  }
  // [/doc:nan_guard]
  CHECK(message ==
        "NanGuard: node 1 of 4 (`log` computing `log(x)`) of the function: output 0 holds 1 inf "
        "of 3 elements (the first, -inf, at index 1)\n  input 0 (`x`): f64[3] min 0 max 2 mean 1");
  const std::string code =
      rw::test::source_snippet(RW_SOURCE_DIR "/tests/engine/compile/test_nan_guard.cpp", "nan_guard");
  const std::vector<std::string> blocks =
      rw::test::markdown_cpp_blocks(RW_SOURCE_DIR "/docs/debugging.md");
  INFO("docs/debugging.md must contain this ```cpp block:\n" << code);
  CHECK(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

namespace {
/// Sets RW_FLAGS for its lifetime.
struct FlagsSet {
  explicit FlagsSet(const char* value) { setenv("RW_FLAGS", value, 1); }
  ~FlagsSet() { unsetenv("RW_FLAGS"); }
  FlagsSet(const FlagsSet&) = delete;
  FlagsSet& operator=(const FlagsSet&) = delete;
};
}  // namespace

TEST_CASE("RW_FLAGS turns NanGuard and the profile on without a rebuild", "[nan_guard]") {
  const Var x = rw::vector("x");
  const Tensor zero = Tensor::from({0.0});
  {
    const FlagsSet flags("nan_guard");
    auto f = rw::function({x}, {rw::log(x)}, {}, unfused());
    CHECK_THROWS_AS(f(zero), NanGuardError);
    // Options that give a guard keep theirs.
    auto g = rw::function({x}, {rw::log(x)}, guarded({.inf = false}), unfused());
    CHECK(std::isinf(g(zero)[0].data<double>()[0]));
  }
  {
    const FlagsSet flags(" profile , nan_guard,");
    auto f = rw::function({x}, {rw::exp(x)}, {}, unfused());
    f(Tensor::from({1.0}));
    REQUIRE(f.profile() != nullptr);
    CHECK(f.profile()->calls == 1);
  }
  {
    const FlagsSet flags("nan_gaurd");
    CHECK_THROWS_WITH(rw::function({x}, {rw::exp(x)}, {}, unfused()),
                      "RW_FLAGS: unknown flag `nan_gaurd` (the flags are `nan_guard`, "
                      "`debug_mode`, `profile`, `trace_rewrites`, `profile_rewrites` and "
                      "`native[=off|async|sync]`, separated by commas)");
  }
  // Unset: nothing is checked.
  auto plain = rw::function({x}, {rw::log(x)}, {}, unfused());
  CHECK(std::isinf(plain(zero)[0].data<double>()[0]));
}

namespace {
/// Captures what is written to std::cerr for its lifetime.
struct CerrCapture {
  std::ostringstream text;
  std::streambuf* old = std::cerr.rdbuf(text.rdbuf());
  ~CerrCapture() { std::cerr.rdbuf(old); }
  CerrCapture() = default;
  CerrCapture(const CerrCapture&) = delete;
  CerrCapture& operator=(const CerrCapture&) = delete;
};
}  // namespace

TEST_CASE("FunctionOptions hear the rewrite pipeline: a trace listener and a profile",
          "[nan_guard][rewrite_trace]") {
  // [doc:rewrite_trace]
  rw::Var x = rw::vector("x");
  rw::Var y = rw::exp(rw::log(x)) * 1.0;
  auto recorder = std::make_shared<rw::TraceRecorder>(/*attempts=*/false);
  auto profile = std::make_shared<rw::RewriteProfile>();
  rw::FunctionOptions options;
  options.rewrite_trace = recorder;    // each replacement, with its rule
  options.rewrite_profile = profile;   // each pass and rewriter: tries, time
  rw::Function f = rw::function({x}, {y}, options);
  // recorder->lines() holds `replaced … [exp_log]`; profile->table() the costs
  // [/doc:rewrite_trace]
  const std::string code = rw::test::source_snippet(
      RW_SOURCE_DIR "/tests/engine/compile/test_nan_guard.cpp", "rewrite_trace");
  const std::vector<std::string> blocks =
      rw::test::markdown_cpp_blocks(RW_SOURCE_DIR "/docs/debugging.md");
  INFO("docs/debugging.md must contain this ```cpp block:\n" << code);
  CHECK(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
  CHECK(f(Tensor::from({2.0}))[0].data<double>()[0] == 2.0);
  // The replacements, each with its rule.
  std::string lines;
  for (const std::string& l : recorder->lines()) lines += l + "\n";
  INFO(lines);
  CHECK(lines.find("[mul_one_right]") != std::string::npos);
  CHECK(lines.find("[exp_log]") != std::string::npos);
  CHECK(lines.find("tried") == std::string::npos);  // attempts not asked for
  // The profile: the standard passes, and the rules that fired in them.
  REQUIRE(profile->find("canonicalize") != nullptr);
  CHECK(profile->table().find("mul_one_right") != std::string::npos);
  // With a mode too.
  auto again = std::make_shared<rw::TraceRecorder>(false);
  auto g = rw::function({x}, {y}, {.rewrite_trace = again}, rw::default_mode());
  CHECK(again->lines().size() == recorder->lines().size());
  // A hand-written pipeline cannot be listened to.
  rw::FunctionOptions hand;
  hand.rewrite = [](rw::FunctionGraph&) {};
  hand.rewrite_trace = recorder;
  CHECK_THROWS_WITH(rw::function({x}, {y}, hand),
                    Catch::Contains("`options.rewrite_trace` and `options.rewrite_profile`"));
}

TEST_CASE("RW_FLAGS=trace_rewrites,profile_rewrites print the pipeline's work to std::cerr",
          "[nan_guard][rewrite_trace]") {
  const Var x = rw::vector("x");
  const Var y = rw::exp(rw::log(x)) * 1.0;
  {
    const FlagsSet flags("trace_rewrites");
    CerrCapture err;
    auto f = rw::function({x}, {y});
    const std::string text = err.text.str();
    INFO(text);
    CHECK(text.find("rewrite: replaced") != std::string::npos);
    CHECK(text.find("[exp_log]") != std::string::npos);
    CHECK(text.find("tried") == std::string::npos);
  }
  {
    // The options' listener hears the events as well as the printer.
    const FlagsSet flags("trace_rewrites");
    CerrCapture err;
    auto recorder = std::make_shared<rw::TraceRecorder>(false);
    auto f = rw::function({x}, {y}, {.rewrite_trace = recorder});
    CHECK_FALSE(recorder->lines().empty());
    CHECK(err.text.str().find("[exp_log]") != std::string::npos);
  }
  {
    const FlagsSet flags("profile_rewrites");
    CerrCapture err;
    auto f = rw::function({x}, {y});
    CHECK(err.text.str().find("canonicalize") != std::string::npos);
    CHECK(err.text.str().find("exp_log") != std::string::npos);
  }
  CerrCapture err;
  auto quiet = rw::function({x}, {y});
  CHECK(err.text.str().empty());
}

TEST_CASE("a long Op is written once at the end of the profile, wrapped", "[compile]") {
  const Var x = rw::vector("x");
  const Var y = rw::vector("y");
  // Fused into one Composite whose text is long.
  Var e = x;
  for (int i = 0; i < 12; ++i) e = rw::tanh(e * y + 1.5);
  auto f = rw::function({x, y}, {e}, {.profile = true});
  f(rw::Tensor::from({0.5, 1.0}), rw::Tensor::from({2.0, 3.0}));
  const rw::FunctionProfile& p = *f.profile();
  REQUIRE(p.nodes.size() == 1);
  REQUIRE(p.nodes[0].op_class == "Composite");
  REQUIRE(p.nodes[0].op.size() > 96);
  const std::string table = p.summary();
  INFO(table);
  CHECK(table.find("= [1]\n") != std::string::npos);
  CHECK(table.find("ops in full:\n  [1] Composite{") != std::string::npos);
  // The op's text appears once, and no line is wider than 96 columns.
  CHECK(table.find(p.nodes[0].op.substr(0, 60)) == table.rfind(p.nodes[0].op.substr(0, 60)));
  std::size_t widest = 0, at = 0;
  for (std::size_t nl; (nl = table.find('\n', at)) != std::string::npos; at = nl + 1)
    widest = std::max(widest, nl - at);
  CHECK(widest <= 96);
}
