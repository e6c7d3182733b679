// FlatTable and PointerSet against a std::set model, through random
// insertions and erasures that exercise probing and backward-shift deletion.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <vector>

#include "engine/rewrite/detail/flat_table.hpp"

using namespace rw::detail;

namespace {
struct Slot {
  std::uint64_t hash;
  int value;
};
/// Every key hashes to one of 4 values: long probe runs and many collisions.
struct CollidingTraits {
  static Slot empty() { return {0, -1}; }
  static bool is_empty(const Slot& s) { return s.value < 0; }
  static std::uint64_t hash(const Slot& s) { return s.hash; }
};
std::uint64_t colliding_hash(int v) { return static_cast<std::uint64_t>(v % 4); }
}  // namespace

TEST_CASE("a flat table with heavy collisions agrees with a set", "[rewrite]") {
  FlatTable<Slot, CollidingTraits> table;
  std::set<int> model;
  std::mt19937 rng(3);
  for (int step = 0; step < 20000; ++step) {
    const int v = std::uniform_int_distribution<int>(0, 300)(rng);
    auto match = [v](const Slot& s) { return s.value == v; };
    if (rng() % 3) {
      if (!table.find(colliding_hash(v), match)) table.insert({colliding_hash(v), v});
      model.insert(v);
    } else {
      REQUIRE(table.erase(colliding_hash(v), match) == (model.erase(v) == 1));
    }
    REQUIRE(table.size() == model.size());
  }
  for (int v = 0; v <= 300; ++v)
    REQUIRE((table.find(colliding_hash(v), [v](const Slot& s) { return s.value == v; }) !=
             nullptr) == model.contains(v));
  table.clear();
  REQUIRE(table.empty());
  REQUIRE(table.find(0, [](const Slot&) { return true; }) == nullptr);
}

TEST_CASE("a pointer set inserts once and erases what it holds", "[rewrite]") {
  std::vector<int> storage(5000);
  PointerSet<int> set;
  std::set<int*> model;
  std::mt19937 rng(5);
  for (int step = 0; step < 50000; ++step) {
    int* p = &storage[std::uniform_int_distribution<std::size_t>(0, storage.size() - 1)(rng)];
    if (rng() % 2) REQUIRE(set.insert(p) == model.insert(p).second);
    else REQUIRE(set.erase(p) == (model.erase(p) == 1));
  }
  REQUIRE(set.size() == model.size());
  for (int& x : storage) REQUIRE(set.contains(&x) == model.contains(&x));
}
