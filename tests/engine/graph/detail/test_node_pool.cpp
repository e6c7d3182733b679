// NodePool and PoolAllocator: blocks are reused by size class, large requests
// bypass the pool, and standard containers run on it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <list>
#include <set>

#include "engine/graph/detail/node_pool.hpp"

using rw::detail::NodePool;
using rw::detail::PoolAllocator;

TEST_CASE("a freed block is the next one given out in its size class", "[graph]") {
  NodePool pool;
  void* a = pool.allocate(40);
  void* b = pool.allocate(40);
  REQUIRE(a != b);
  pool.deallocate(a, 40);
  // 33..48 bytes share a class: the freed 40-byte block serves a 48-byte request.
  REQUIRE(pool.allocate(48) == a);
  // Another class does not take it.
  pool.deallocate(b, 40);
  void* c = pool.allocate(64);
  REQUIRE(c != b);
  REQUIRE(pool.allocate(33) == b);
  pool.deallocate(c, 64);
}

TEST_CASE("pool blocks are aligned and distinct across many chunks", "[graph]") {
  NodePool pool;
  std::set<std::uintptr_t> seen;
  for (int i = 0; i < 5000; ++i) {  // several 16 KiB chunks
    auto p = reinterpret_cast<std::uintptr_t>(pool.allocate(1 + i % NodePool::kMaxBlock));
    REQUIRE(p % NodePool::kGranule == 0);
    REQUIRE(seen.insert(p).second);
  }
}

TEST_CASE("requests larger than a pool block go to operator new", "[graph]") {
  NodePool pool;
  void* big = pool.allocate(NodePool::kMaxBlock + 1);
  static_cast<char*>(big)[NodePool::kMaxBlock] = 1;  // usable to its last byte
  pool.deallocate(big, NodePool::kMaxBlock + 1);
  // Nothing of it went to a free list: the next small block is a fresh one.
  void* small = pool.allocate(16);
  REQUIRE(small != big);
}

TEST_CASE("a std::list runs on the pool and reuses its nodes", "[graph]") {
  NodePool pool;
  std::list<int, PoolAllocator<int>> xs{PoolAllocator<int>(&pool)};
  for (int i = 0; i < 100; ++i) xs.push_back(i);
  const int* first = &xs.front();
  xs.pop_front();
  xs.push_back(100);
  REQUIRE(&xs.back() == first);  // the freed node came back
  int expect = 1;
  for (int v : xs) REQUIRE(v == expect++);

  // Moved into a default-constructed list, the pool goes with the nodes.
  std::list<int, PoolAllocator<int>> ys;
  REQUIRE(ys.get_allocator().pool() == nullptr);
  ys = std::move(xs);
  REQUIRE(ys.get_allocator().pool() == &pool);
  REQUIRE(ys.size() == 100);
}
