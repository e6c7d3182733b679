// Substitutions: persistence (copies never see later bindings), walking, and
// agreement with a plain map over random operations on many versions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <thread>

#include "engine/unify/subst.hpp"

using namespace rw;

TEST_CASE("bind, find and walk", "[unify]") {
  Term x = lvar("x"), y = lvar("y"), z = lvar("z");
  Substitution s;
  REQUIRE(s.empty());
  s.bind(x, y);
  s.bind(y, compound("f", {z}));
  REQUIRE(s.size() == 2);
  REQUIRE(*s.find(x) == y);
  REQUIRE(s.find(z) == nullptr);
  REQUIRE(s.find(Term(1)) == nullptr);
  REQUIRE(s.walk(x) == compound("f", {z}));  // one step at a time, to the first non-variable
  REQUIRE(s.walk(z) == z);
  REQUIRE(s.walk(Term(7)) == Term(7));
  REQUIRE_THROWS_WITH(s.bind(Term(1), 2), "bind() of a integer");
  REQUIRE_THROWS_WITH(s.bind(x, Term()), "cannot bind a variable to the null term");
}

TEST_CASE("a copy is not affected by bindings made after it", "[unify]") {
  std::vector<Term> vars = lvars(2000);
  Substitution base;
  for (int i = 0; i < 1000; ++i) base.bind(vars[i], i);
  Substitution left = base, right = base;
  for (int i = 1000; i < 2000; ++i) left.bind(vars[i], -i);
  right.bind(vars[0], "replaced");
  REQUIRE(base.size() == 1000);
  REQUIRE(left.size() == 2000);
  REQUIRE(right.size() == 1000);
  for (int i = 0; i < 1000; ++i) {
    REQUIRE(base.find(vars[i])->as_int() == i);
    REQUIRE(base.find(vars[1000 + i]) == nullptr);
    REQUIRE(left.find(vars[1000 + i])->as_int() == -(1000 + i));
  }
  REQUIRE(right.find(vars[0])->as_string() == "replaced");
  REQUIRE(left.find(vars[0])->as_int() == 0);
  REQUIRE(base.find(vars[0])->as_int() == 0);
  const Substitution with = base.with(vars[1999], 5);
  REQUIRE(with.size() == 1001);
  REQUIRE(base.find(vars[1999]) == nullptr);
}

TEST_CASE("bindings are listed in variable order", "[unify]") {
  std::vector<Term> vars = lvars(100);
  Substitution s;
  for (int i = 99; i >= 0; --i) s.bind(vars[i], i * 10);
  const auto all = s.bindings();
  REQUIRE(all.size() == 100);
  for (int i = 0; i < 100; ++i) {
    REQUIRE(all[i].first == vars[i]);
    REQUIRE(all[i].second.as_int() == i * 10);
  }
}

TEST_CASE("many versions agree with a map model under random operations", "[unify]") {
  std::mt19937 rng(42);
  std::vector<Term> vars = lvars(3000);
  struct Version {
    Substitution s;
    std::map<std::uint64_t, std::int64_t> model;
  };
  std::vector<Version> versions(1);
  for (int step = 0; step < 20000; ++step) {
    const std::size_t which = rng() % versions.size();
    const int op = static_cast<int>(rng() % 10);
    if (op == 0 && versions.size() < 64) {
      versions.push_back(versions[which]);  // branch
    } else if (op == 1 && versions.size() > 1) {
      versions.erase(versions.begin() + static_cast<std::ptrdiff_t>(which));  // drop
    } else {
      const Term& v = vars[rng() % vars.size()];
      const auto value = static_cast<std::int64_t>(rng() % 1000000);
      versions[which].s.bind(v, value);
      versions[which].model[v.bits()] = value;
    }
  }
  for (const Version& ver : versions) {
    REQUIRE(ver.s.size() == ver.model.size());
    for (const Term& v : vars) {
      const Term* got = ver.s.find(v);
      auto it = ver.model.find(v.bits());
      if (it == ver.model.end()) {
        REQUIRE(got == nullptr);
      } else {
        REQUIRE(got != nullptr);
        REQUIRE(got->as_int() == it->second);
      }
    }
  }
}

TEST_CASE("ids far apart share a trie with consecutive ones", "[unify]") {
  // Consecutive ids, ids from another thread's block (4096 or more away),
  // reified variables (bit 47 set) and a named variable, bound in a mixed
  // order: each must be found, and the listing is in id order.
  std::vector<Term> vars = lvars(300);
  std::vector<Term> other;
  std::thread([&] { other = lvars(40); }).join();
  vars.insert(vars.end(), other.begin(), other.end());
  for (std::uint64_t i : {0u, 1u, 31u, 32u, 1000u, 123456u}) vars.push_back(Term::reified(i));
  vars.push_back(lvar("named"));
  std::mt19937 rng(7);
  std::vector<std::size_t> order(vars.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  Substitution s;
  std::vector<Substitution> versions;
  for (std::size_t k = 0; k < order.size(); ++k) {
    s.bind(vars[order[k]], static_cast<std::int64_t>(order[k]));
    if (k % 50 == 0) versions.push_back(s);  // earlier versions must not change
  }
  REQUIRE(s.size() == vars.size());
  for (std::size_t i = 0; i < vars.size(); ++i) REQUIRE(s.find(vars[i])->as_int() == static_cast<std::int64_t>(i));
  for (std::size_t v = 0; v < versions.size(); ++v) {
    const std::size_t bound = v * 50 + 1;
    REQUIRE(versions[v].size() == bound);
    for (std::size_t k = 0; k < order.size(); ++k)
      REQUIRE((versions[v].find(vars[order[k]]) != nullptr) == (k < bound));
  }
  const auto all = s.bindings();
  REQUIRE(all.size() == vars.size());
  for (std::size_t i = 1; i < all.size(); ++i) REQUIRE(all[i - 1].first.var_id() < all[i].first.var_id());
  REQUIRE(all.back().first.is_reified_var());
  bool named_kept = false;
  for (const auto& [var, value] : all) named_kept |= var.var_name() == "named" && var == vars.back();
  REQUIRE(named_kept);
  REQUIRE(s.find(lvar()) == nullptr);
  REQUIRE(s.find(Term::reified(2)) == nullptr);
}
