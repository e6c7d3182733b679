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

/// CPU seconds the whole process has used (every thread): with wall time,
/// how many cores a parallel call kept busy.
inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// The 1-minute load average (/proc/loadavg), 0 where unreadable: printed
/// beside timings taken on a shared machine.
inline double load_average() {
  double load = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  return load;
}

/// Medians of the wall and the CPU time (`cpu_clock`: thread_cpu_seconds or
/// process_cpu_seconds) of `runs` calls of f() after one untimed call.
struct WallAndCpu {
  double wall = 0, cpu = 0;
};
template <class F, class Clock> WallAndCpu median_wall_and_cpu(F&& f, int runs, Clock cpu_clock) {
  f();
  std::vector<double> wall, cpu;
  for (int i = 0; i < runs; ++i) {
    const double c0 = cpu_clock();
    wall.push_back(time_once(f));
    cpu.push_back(cpu_clock() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
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
