// ThreadPool: coverage, determinism of chunks, exceptions, nesting, load.
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/thread_pool.hpp"

using namespace rw;

TEST_CASE("parallel_for visits every index exactly once in fixed chunks", "[runtime]") {
  ThreadPool pool(3);
  REQUIRE(pool.num_threads() == 3);
  for (std::int64_t n : {0, 1, 7, 1000, 100003}) {
    // Catch2 assertions are not thread-safe: chunks record, the test checks.
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::atomic<int> misplaced{0};
    pool.parallel_for(n, 10, [&](std::int64_t b, std::int64_t e) {
      if (b % 10 != 0 || e != std::min(n, b + 10)) ++misplaced;
      for (std::int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    REQUIRE(misplaced.load() == 0);
    for (auto& h : hits) REQUIRE(h.load() == 1);
  }
}

TEST_CASE("an exception in a chunk reaches the caller and the pool stays usable", "[runtime]") {
  ThreadPool pool(2);
  REQUIRE_THROWS_WITH(pool.parallel_for(1000, 1,
                                        [&](std::int64_t b, std::int64_t) {
                                          if (b == 500) throw std::runtime_error("chunk 500");
                                        }),
                      "chunk 500");
  std::atomic<std::int64_t> sum{0};
  pool.parallel_for(1000, 7, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) sum += i;
  });
  REQUIRE(sum.load() == 999 * 1000 / 2);
}

TEST_CASE("nested loops and concurrent callers run without deadlock", "[runtime]") {
  ThreadPool pool(2);
  std::atomic<std::int64_t> total{0};
  pool.parallel_for(8, 1, [&](std::int64_t, std::int64_t) {
    pool.parallel_for(100, 10, [&](std::int64_t b, std::int64_t e) { total += e - b; });
  });
  REQUIRE(total.load() == 800);

  // Several threads hammer the same pool: each loop still covers its range.
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&] {
      for (int rep = 0; rep < 200; ++rep) {
        std::atomic<std::int64_t> s{0};
        pool.parallel_for(1000, 13, [&](std::int64_t b, std::int64_t e) {
          for (std::int64_t i = b; i < e; ++i) s += i;
        });
        if (s.load() != 999 * 1000 / 2) ++wrong;
      }
    });
  for (auto& c : callers) c.join();
  REQUIRE(wrong.load() == 0);
}

TEST_CASE("the pool resizes and refuses a count below one", "[runtime]") {
  ThreadPool pool(1);
  REQUIRE(pool.num_threads() == 1);
  pool.resize(4);
  REQUIRE(pool.num_threads() == 4);
  std::atomic<int> chunks{0};
  pool.parallel_for(64, 1, [&](std::int64_t, std::int64_t) { ++chunks; });
  REQUIRE(chunks.load() == 64);
  REQUIRE_THROWS_WITH(pool.resize(0), "thread count must be at least 1, got 0");
  REQUIRE(pool.num_threads() == 4);
  REQUIRE_THROWS_WITH(set_num_threads(-2), "thread count must be at least 1, got -2");
  REQUIRE(num_threads() >= 1);
}
