// Shared helpers of the benchmark programs: timing and the one-line report
// format `bench=NAME n=N median_s=X key=value…`.
#pragma once

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

namespace rw::bench {

/// Seconds taken by f().
template <class F> double time_once(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// CPU seconds the calling thread has used: on a machine shared with other
/// work, the figure that load does not inflate (wall time is reported too).
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Median of `runs` timed calls of f() after `warmup` untimed ones.
template <class F> double median_time(F&& f, int runs = 5, int warmup = 1) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> ts;
  for (int i = 0; i < runs; ++i) ts.push_back(time_once(f));
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

/// Prints `bench=NAME n=N median_s=X` followed by `extra` (" key=value…").
inline void report(const std::string& name, long long n, double median_s,
                   const std::string& extra = {}) {
  std::printf("bench=%s n=%lld median_s=%.6g%s\n", name.c_str(), n, median_s, extra.c_str());
  std::fflush(stdout);
}

}  // namespace rw::bench
