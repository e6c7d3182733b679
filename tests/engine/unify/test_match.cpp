// Pattern matching of graph variables: bindings, reasons for failure, Op
// properties, constants, commutative/associative arrangements, guards, and
// failing without allocating.
#include <catch2/catch.hpp>

#include <set>
#include <thread>

#include "engine/unify/match.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"
#include "engine/unify/unify.hpp"
#include "support/alloc_count.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

OpPtr op(const char* name, int arity) { return toy(name, arity); }

/// Reads a pattern whose heads are symbols and turns the toy op names into
/// Op atoms: `mul(?x, 1)` matches the toy `mul`.
Term atoms(const Term& t) {
  if (!t.is_compound()) return t;
  std::vector<Term> args;
  for (const Term& a : t.args()) args.push_back(atoms(a));
  Term head = t.head();
  if (head.kind() == TermKind::String) head = Term(op(std::string(head.as_string()).c_str(), static_cast<int>(args.size())));
  return compound(head, args);
}

Pattern pat(const char* text, TermVars& vars, Theory th = {}) {
  return Pattern(atoms(parse_term(text, vars)), std::move(th));
}

}  // namespace

TEST_CASE("a match binds the pattern's variables to graph variables", "[unify]") {
  TermVars v;
  Pattern p = pat("div(mul(?x, ?y), ?y)", v);
  REQUIRE(p.root_op_name() == "div");
  REQUIRE(p.variables().size() == 2);
  Var a = fvec("a"), b = fvec("b");
  Var e = div(mul(a, b), b);
  MatchResult m = match(p, e);
  REQUIRE(m);
  REQUIRE(m.why().empty());
  REQUIRE(m->walk(v["x"]).graph_var() == a.get());
  REQUIRE(m->walk(v["y"]).graph_var() == b.get());
  REQUIRE(m->size() == 2);
  // The repeated ?y may be two distinct nodes computing the same thing.
  REQUIRE(match(p, div(mul(a, exp(b)), exp(b))));
}

TEST_CASE("a failed match says which subpattern failed and on what", "[unify]") {
  TermVars v;
  Var x = fvec("x"), y = fvec("y");
  auto why = [&](const char* pattern, const Var& subject) {
    const Pattern p = pat(pattern, v);  // why() reads the pattern: keep it alive
    MatchResult m = match(p, subject);
    REQUIRE_FALSE(m);
    return m.why();
  };
  CHECK(why("mul(?a, 1)", mul(x, y)) == "input 1 of `mul`: expected constant 1, got `y`");
  CHECK(why("mul(?a, 1)", mul(x, fconst(2.0))) ==
        "input 1 of `mul`: expected constant 1, got constant `2.0`");
  CHECK(why("mul(?a, 1)", add(x, y)) == "expected `mul`, got `add`");
  CHECK(why("mul(?a, 1)", x) == "expected `mul`, got `x` (a graph input)");
  CHECK(why("div(mul(?a, ?b), ?b)", div(mul(x, y), x)) ==
        "input 1 of `div`: `?b` stands for `y` here, got `x`");
  CHECK(why("div(mul(?a, exp(?b)), ?c)", div(mul(x, log(y)), x)) ==
        "input 0 of `div`, input 1 of `mul`: expected `exp`, got `log`");
  CHECK(why("exp(exp(?a))", exp(fconst(3.0))) ==
        "input 0 of `exp`: expected `exp`, got constant `3.0`");
  Var s = (*toy_sum(std::vector<std::int64_t>{0}))({ftensor("t", {2, 3})});
  auto why_of = [](const Pattern& p, const Var& subject) { return match(p, subject).why(); };
  CHECK(why_of(Pattern(compound(op_pattern("sum", {{"axis", tuple({1})}}), lvar())), s) ==
        "expected `sum{axis=[1]}`, got `sum{axis=(0),keepdims=false}`");
  CHECK(why_of(Pattern(compound(op("add", 2), lvar(), "one")), add(x, y)) ==
        "input 1 of `add`: expected `one`, which no graph variable can be");
  ApplyRef node = std::make_shared<ToySplit>()->make_node(std::vector<Var>{x});
  CHECK(why_of(Pattern(compound("split", lvar())), node->output(1)) ==
        "expected `split`, got output 1 of `split`, which has several outputs");
  CHECK(why_of(Pattern(compound(op("add", 2), lvar(), Term(y))), add(x, x)) ==
        "input 1 of `add`: expected `y`, got `x`");
}

TEST_CASE("op properties and constants in patterns", "[unify]") {
  Var t = ftensor("t", {2, 3, 4});
  Var s = (*toy_sum(std::vector<std::int64_t>{1, 2}))({t});
  Term a = lvar("a"), in = lvar("in");
  MatchResult m = match(Pattern(compound(op_pattern("sum", {{"axis", a}}), in)), s);
  REQUIRE(m);
  REQUIRE(to_string(m->walk(a)) == "[1, 2]");
  REQUIRE(m->walk(in).graph_var() == t.get());
  // A variable shared between a property and an input position must agree.
  REQUIRE(match(Pattern(compound(op_pattern("sum", {{"axis", tuple({1, a})}}), in)), s));
  REQUIRE_FALSE(match(Pattern(compound(op_pattern("sum", {{"axis", tuple({a, a})}}), in)), s));
  // Literals match scalar constants by value and dtype rules.
  Var x = fvec("x");
  Pattern times_one(compound(op("mul", 2), lvar("z"), 1));
  REQUIRE(match(times_one, mul(x, fconst(1.0))));
  REQUIRE(match(times_one, mul(x, Constant::make(Tensor::ones({1})))));
  REQUIRE_FALSE(match(times_one, mul(x, Constant::make(Tensor::ones({3})))));
  // A graph variable in a pattern stands for itself.
  REQUIRE(match(Pattern(compound(op("exp", 1), Term(x))), exp(x)));
  REQUIRE_FALSE(match(Pattern(compound(op("exp", 1), Term(x))), exp(fvec("w"))));
  // A bare variable matches anything, inputs included.
  REQUIRE(match(Pattern(lvar("any")), x));
  // A variable head binds to the Op.
  TermVars v;
  MatchResult h = match(Pattern(parse_term("?f(?a, ?a)", v)), mul(x, x));
  REQUIRE(h);
  REQUIRE(*h->walk(v["f"]).op() == *op("mul", 2));
  REQUIRE_FALSE(match(Pattern(parse_term("?f(?a, ?a)", v)), mul(x, fvec("w"))));
}

TEST_CASE("commutative operators match in either order, the plain one first", "[unify]") {
  Theory th;
  th.commutative("mul");
  TermVars v;
  Var x = fvec("x");
  Pattern p = pat("mul(?a, 1)", v, th);
  MatchResult m = match(p, mul(fconst(1.0), x));  // 1 * x
  REQUIRE(m);
  REQUIRE(m->walk(v["a"]).graph_var() == x.get());
  // Without the declaration the same pattern fails, saying where.
  REQUIRE_FALSE(match(pat("mul(?a, 1)", v), mul(fconst(1.0), x)));
  // Every arrangement of mul(?p, ?q) against mul(x, y): two matches, plain first.
  Var y = fvec("y");
  const auto all = match_all(pat("mul(?p, ?q)", v, th), mul(x, y));
  REQUIRE(all.size() == 2);
  REQUIRE(all[0].walk(v["p"]).graph_var() == x.get());
  REQUIRE(all[1].walk(v["p"]).graph_var() == y.get());
  // mul(x, x): both arrangements bind the same way, so it is seen once.
  REQUIRE(match_all(pat("mul(?p, ?q)", v, th), mul(x, x)).size() == 1);
  // When no arrangement fits, the reason is the plain one's.
  const Var xw = mul(x, fvec("w"));  // why() reads the graph: keep it alive
  MatchResult none = match(p, xw);
  REQUIRE_FALSE(none);
  REQUIRE(none.why() == "input 1 of `mul`: expected constant 1, got `w`");
}

TEST_CASE("associative operators match regrouped", "[unify]") {
  Theory th;
  th.associative("add");
  TermVars v;
  Var a = fvec("a"), b = fvec("b"), c = fvec("c");
  // a + (b + c) against (a + b) + c.
  Pattern p = pat("add(?x, add(?y, ?z))", v, th);
  MatchResult m = match(p, add(add(a, b), c));
  REQUIRE(m);
  REQUIRE(m->walk(v["x"]).graph_var() == a.get());
  REQUIRE(m->walk(v["y"]).graph_var() == b.get());
  REQUIRE(m->walk(v["z"]).graph_var() == c.get());
  REQUIRE_FALSE(match(pat("add(?x, add(?y, ?z))", v), add(add(a, b), c)));
  // ?p + ?q against (a + b) + c: first the grouping the graph has (binding
  // ?p to the existing node a + b), then the regrouping a + (b + c).
  Var ab = add(a, b);
  const auto all = match_all(pat("add(?p, ?q)", v, th), add(ab, c));
  REQUIRE(all.size() == 2);
  REQUIRE(all[0].walk(v["p"]).graph_var() == ab.get());
  REQUIRE(all[0].walk(v["q"]).graph_var() == c.get());
  REQUIRE(all[1].walk(v["p"]).graph_var() == a.get());
  REQUIRE(to_string(all[1].walk(v["q"])) == "add(b, c)");  // a new term, not a node
  // Associativity alone keeps the order of operands.
  REQUIRE_FALSE(match(Pattern(compound(op("add", 2), Term(c), compound(op("add", 2), lvar(), lvar())), th),
                      add(add(a, b), c)));
  // More pattern operands than the graph has.
  const Pattern three = pat("add(?x, add(?y, ?z))", v, th);
  const Var two = add(a, b);  // why() reads the graph: keep it alive
  MatchResult few = match(three, two);
  REQUIRE_FALSE(few);
  REQUIRE(few.why() == "the 2 operands of `add` cannot be arranged as the pattern's 3");
}

TEST_CASE("commutative and associative: any grouping of any operands", "[unify]") {
  Theory th;
  th.ac("add");
  TermVars v;
  Var a = fvec("a"), b = fvec("b"), c = fvec("c");
  // c + ?rest against (a + b) + c: ?rest is the existing node a + b.
  Var ab = add(a, b);
  Term rest = lvar("rest");
  MatchResult r = match(Pattern(compound(op("add", 2), Term(c), rest), th), add(ab, c));
  REQUIRE(r);
  REQUIRE(r->walk(rest).graph_var() == ab.get());
  const auto splits = match_all(pat("add(?p, ?q)", v, th), add(add(a, b), c));
  REQUIRE(splits.size() == 6);  // 2^3 - 2 ways to share three operands between two
  std::set<std::string> seen;
  for (const auto& s : splits) seen.insert(to_string(reify(list({v["p"], v["q"]}), s)));
  REQUIRE(seen.size() == 6);
}

TEST_CASE("arrangements come one at a time, existing groups first", "[unify]") {
  using detail::Arrangement;
  auto all = [](detail::Arrangements arrs) {
    std::vector<Arrangement> out;
    for (Arrangement a; arrs.next(a);) out.push_back(a);
    return out;
  };
  // Associative, 3 operands over 2, with [0, 2) a node of its own: that
  // grouping first, then the regrouping.
  REQUIRE(all(detail::Arrangements(2, 3, false, true, {{0, 2}})) ==
          std::vector<Arrangement>{{{0, 1}, {2}}, {{0}, {1, 2}}});
  REQUIRE(all(detail::Arrangements(2, 3, false, true, {})) ==
          std::vector<Arrangement>{{{0}, {1, 2}}, {{0, 1}, {2}}});
  // Commutative and associative: every non-empty split, 2^3 - 2.
  REQUIRE(all(detail::Arrangements(2, 3, true, true, {})).size() == 6);
  // Neither, or counts that cannot fit: the identity, or nothing.
  REQUIRE(all(detail::Arrangements(2, 2, false, false, {})) == std::vector<Arrangement>{{{0}, {1}}});
  REQUIRE(all(detail::Arrangements(3, 2, true, true, {})).empty());
  // 12 commutative operands (479,001,600 orders): the first two at once.
  detail::Arrangements twelve(12, 12, true, false, {});
  Arrangement first, second;
  REQUIRE(twelve.next(first));
  REQUIRE(twelve.next(second));
  for (std::uint32_t i = 0; i < 10; ++i) REQUIRE(first[i] == std::vector<std::uint32_t>{i});
  REQUIRE(first[11] == std::vector<std::uint32_t>{11});
  REQUIRE(second[10] == std::vector<std::uint32_t>{11});
  REQUIRE(second[11] == std::vector<std::uint32_t>{10});
}

TEST_CASE("nine operands of a commutative Op match without a limit on arrangements", "[unify]") {
  // 9! = 362,880 permutations: more than any list of them made up front
  // should hold, so they are tried one at a time.
  Theory th;
  th.commutative("mix");
  const OpPtr mix = op("mix", 9);
  std::vector<Var> xs;
  for (int i = 0; i < 9; ++i) xs.push_back(fvec(("x" + std::to_string(i)).c_str()));
  const Var e = (*mix)(xs);
  // mix(?p1, …, ?p8, x0): x0 is the subject's first operand, so the plain
  // reading fails and the first permutation that puts it last binds ?p1 … ?p8
  // to x1 … x8.
  std::vector<Term> args;
  for (int i = 1; i < 9; ++i) args.push_back(lvar(("p" + std::to_string(i)).c_str()));
  args.push_back(Term(xs[0]));
  MatchResult m;
  REQUIRE_NOTHROW(m = match(Pattern(compound(Term(mix), args), th), e));
  REQUIRE(m);
  for (int i = 1; i < 9; ++i) REQUIRE(m->walk(args[i - 1]).graph_var() == xs[i].get());
  // An operand the subject lacks: every permutation is tried, then no match.
  args.back() = Term(fvec("absent"));
  MatchResult none;
  REQUIRE_NOTHROW(none = match(Pattern(compound(Term(mix), args), th), e));
  REQUIRE_FALSE(none);
}

TEST_CASE("guards are checked after the structure, and move on to the next arrangement", "[unify]") {
  Theory th;
  th.commutative("mul");
  TermVars v;
  Var x = fvec("x");
  Var k = fconst(3.0);
  auto is_constant = [&](const Bindings& b) {
    const Var g = b.graph(v["c"]);
    return g && g->is_constant();
  };
  // mul(?c, ?x) where ?c is a constant: against x * 3 the plain reading
  // binds ?c to x; the guard refuses it and the swapped reading succeeds.
  Pattern p = pat("mul(?c, ?e)", v, th);
  p.where("constant(c)", is_constant);
  MatchResult m = match(p, mul(x, k));
  REQUIRE(m);
  REQUIRE(m->walk(v["c"]).graph_var() == k.get());
  Pattern q = pat("mul(?c, ?e)", v);
  q.where("constant(c)", is_constant);
  MatchResult refused = match(q, mul(x, k));
  REQUIRE_FALSE(refused);
  REQUIRE(refused.why() == "guard `constant(c)` failed");
  REQUIRE(refused.failure().kind == MatchFailKind::GuardFailed);
  // Bindings give the values: a property value is a term, not a graph variable.
  Term a = lvar("a");
  Pattern sum(compound(op_pattern("sum", {{"axis", a}}), lvar("in")));
  sum.where("two axes", [&](const Bindings& b) { return b[a].is_tuple() && b[a].arity() == 2 && !b.graph(a); });
  Var t = ftensor("t", {2, 3, 4});
  REQUIRE(match(sum, (*toy_sum(std::vector<std::int64_t>{0, 1}))({t})));
  REQUIRE_FALSE(match(sum, (*toy_sum(std::vector<std::int64_t>{0}))({t})));
}

TEST_CASE("a failing match allocates nothing", "[unify]") {
  TermVars v;
  Pattern p = pat("div(mul(?x, ?y), ?y)", v);
  Pattern one = pat("mul(?a, 1)", v);
  Var x = fvec("x"), y = fvec("y");
  Var wrong_root = add(x, y), wrong_deep = div(mul(x, y), x), not_one = mul(x, y);
  const long before = allocations_on_this_thread();
  int matched = 0;
  for (int i = 0; i < 100; ++i) {
    matched += static_cast<bool>(match(p, wrong_root));
    matched += static_cast<bool>(match(p, wrong_deep));
    matched += static_cast<bool>(match(one, not_one));
    matched += static_cast<bool>(match(p, x));
  }
  const long during = allocations_on_this_thread() - before;
  REQUIRE(matched == 0);
  REQUIRE(during == 0);
  // A success allocates its substitution, and no more than a few blocks: the
  // substitution's trie holds ?x and ?y in one node when their ids share a
  // block of 32, in two and a branch above them when they do not (which the
  // number of variables earlier tests made decides).
  const Var fits = div(mul(x, y), y);
  const long ok_before = allocations_on_this_thread();
  const bool ok = static_cast<bool>(match(p, fits));
  const long on_success = allocations_on_this_thread() - ok_before;
  REQUIRE(ok);
  REQUIRE(on_success <= 3);
}

TEST_CASE("two operands of a commutative op are tried in both orders without allocating",
          "[unify]") {
  Theory th;
  th.commutative("mul");
  TermVars v;
  // (x * y) / y: the product's operands in either order.
  Pattern p = pat("div(mul(?x, ?y), ?y)", v, th);
  Var a = fvec("a"), b = fvec("b"), c = fvec("c");
  Var swapped = div(mul(b, a), b), neither = div(mul(a, b), c);
  const long before = allocations_on_this_thread();
  int failed = 0;
  for (int i = 0; i < 100; ++i) failed += !static_cast<bool>(match(p, neither));
  const long during = allocations_on_this_thread() - before;
  CHECK(failed == 100);
  CHECK(during == 0);
  // The written order first: it binds ?x = b, ?y = a and fails at the
  // divisor, so the failure given is the plain arrangement's; then the
  // swapped order fits.
  MatchResult m = match(p, swapped);
  REQUIRE(m);
  CHECK(m->walk(v["x"]).graph_var() == a.get());
  CHECK(m->walk(v["y"]).graph_var() == b.get());
  MatchResult none = match(p, neither);
  CHECK(none.why() == "input 1 of `div`: `?y` stands for `b` here, got `c`");

  // Nested: the outer product's second order must undo what the inner one
  // bound in both of its orders. exp(x) * (y * z) with `mul` commutative
  // against (c * b) * exp(a): only outer swapped, inner either way.
  Pattern nested = pat("mul(exp(?x), mul(?y, ?z))", v, th);
  const auto all = match_all(nested, mul(mul(c, b), exp(a)));
  REQUIRE(all.size() == 2);
  std::set<std::string> seen;
  for (const auto& s : all) {
    CHECK(s.walk(v["x"]).graph_var() == a.get());
    seen.insert(to_string(reify(list({v["y"], v["z"]}), s)));
  }
  CHECK(seen == std::set<std::string>{"(c b)", "(b c)"});
}

TEST_CASE("one pattern is matched from several threads at once", "[unify]") {
  // Patterns live in a shared rule database: their terms' counts are atomic,
  // and matching only reads the pattern.
  TermVars v;
  const Pattern p = pat("div(mul(?x, ?y), ?y)", v);
  const Term rhs = parse_term("f(?x, ?y, ?x)", v);
  const Term y = v.at("y");
  std::vector<std::thread> threads;
  std::vector<int> found(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Var a = fvec("a"), b = fvec("b");
      Var hit = div(mul(a, b), b), miss = div(mul(a, b), a);
      for (int i = 0; i < 2000; ++i) {
        MatchResult m = match(p, hit);
        if (m && m->walk(y).graph_var() == b.get()) ++found[t];
        if (match(p, miss)) --found[t];
        const Term copy = rhs;  // copies of shared terms from every thread
        if (!(reify(copy, *m) == reify(rhs, *m))) --found[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(found == std::vector<int>(4, 2000));
}

TEST_CASE("a compiled pattern is a program, and its facts are read off it", "[unify]") {
  TermVars v;
  const Pattern p = pat("div(mul(?x, exp(?y)), ?y)", v);
  using Kind = Pattern::Node::Kind;
  const auto program = p.program();
  // Pre-order, as the matcher visits: div, mul, ?x, exp, ?y, then ?y again.
  REQUIRE(program.size() == 6);
  CHECK(program[0].kind == Kind::Apply);
  CHECK(program[0].parent == Pattern::kNoParent);
  CHECK(program[1].name == "mul");
  CHECK(program[3].name == "exp");
  CHECK(program[3].depth == 2);
  CHECK(program[5].kind == Kind::Var);
  CHECK(program[5].slot == program[4].slot);
  CHECK(p.path_of(4) == std::vector<std::uint32_t>{0, 1, 0});
  CHECK(p.path_of(0).empty());
  CHECK(p.facts().depth == 2);
  CHECK(p.facts().intermediates == std::vector<std::vector<std::uint32_t>>{{0}, {0, 1}});
  CHECK_FALSE(p.facts().commutative);
  CHECK(p.facts().leaves.empty());
  CHECK(p.slot(v["x"]) == std::optional<std::uint32_t>(0));
  CHECK(p.slot(v["y"]) == std::optional<std::uint32_t>(1));
  CHECK_FALSE(p.slot(lvar("z")));
  CHECK(p.listing() ==
        "match `div(mul(?x, exp(?y)), ?y)`: 6 instructions, 2 slots\n"
        "  %0   root             op div, 2 inputs\n"
        "  %1   input 0 of %0    op mul, 2 inputs\n"
        "  %2   input 0 of %1    bind slot 0 (?x)\n"
        "  %3   input 1 of %1    op exp, 1 input\n"
        "  %4   input 0 of %3    bind slot 1 (?y)\n"
        "  %5   input 1 of %0    same value as slot 1 (?y)\n");

  // Arranged operands and a graph variable written into the pattern.
  Theory th;
  th.ac("add");
  const Var c = fvec("c");
  const Pattern ac(compound(op("add", 2), Term(c), compound(op("add", 2), v["x"], Term::integer(1))), th);
  CHECK(ac.facts().commutative);
  CHECK(ac.facts().associative);
  REQUIRE(ac.facts().leaves.size() == 1);
  CHECK(ac.facts().leaves[0].graph_var() == c.get());
  const std::string listing = ac.listing();
  CHECK_THAT(listing, Catch::Contains("op add, associative: operands %1 %3 %4 in any order and grouping"));
  CHECK_THAT(listing, Catch::Contains("the graph variable c"));
  CHECK_THAT(listing, Catch::Contains("constant 1"));
}

TEST_CASE("a guard given whole reads the slots it names", "[unify]") {
  TermVars v;
  Pattern p = pat("mul(?x, ?y)", v);
  const Var a = fvec("a"), b = fvec("b");
  const std::uint32_t y = *p.slot(v["y"]);
  std::vector<const Variable*> seen;
  p.where(Guard{"y_is_b",
                [&](const Bindings& bs) {
                  seen.push_back(bs.graph_at(y).get());
                  return bs.graph_at(y) == b;
                },
                {},
                {y}});
  CHECK(match(p, mul(a, b)));
  CHECK_FALSE(match(p, mul(b, a)));
  CHECK(seen == std::vector<const Variable*>{b.get(), a.get()});
  CHECK_THAT(p.listing(), Catch::EndsWith("guard `y_is_b` reads slot 1 (?y)\n"));
  // A slot out of range is refused, and the pattern keeps the guards it had.
  CHECK_THROWS_WITH(p.where(Guard{"bad", [](const Bindings&) { return true; }, {}, {7}}),
                    "guard `bad` reads slot 7, but the pattern has 2 slots");
  CHECK(p.guards().size() == 1);
  CHECK_THROWS_AS(p.where(Guard{"empty", {}, {}, {}}), TermError);
}
