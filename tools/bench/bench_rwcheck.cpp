// bench_rwcheck: the whole `rwcheck GRAPH` process on the nine reference
// graphs of ../shared/bench/graphs/ — start-up, loading the standard rules,
// rewriting with provenance, printing the report.
//
//   build/tools/bench_rwcheck [GRAPH_DIR] [--rwcheck PATH] [--only NAME] [--runs N]
//                             [-- RWCHECK_ARGS...]
//
// Spawns the rwcheck executable (the one built beside this program, or
// `--rwcheck PATH`: an older build, for a side-by-side), its standard output
// read through a pipe and counted, its standard error discarded. Arguments
// after `--` go to rwcheck before the graph (`-- --mode none`, `-- --full`).
// `--runs N` times N runs after one warm-up (default 7).
//
// One line per graph: `bench=rwcheck_<graph> n=N median_s=X cpu_s=Y
// out_bytes=Z status=S`: the median wall time of the process, the median of
// its user + system CPU time (what load on a shared machine inflates less),
// the bytes it printed and its exit status.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.hpp"

extern char** environ;

namespace {

/// A reference graph and its size parameter (the graphs' README).
struct Reference {
  const char* name;
  long long n;
};

constexpr Reference kGraphs[] = {
    {"chain-100", 100}, {"chain-1000", 1000}, {"chain-5000", 5000},
    {"dag-100", 100},   {"dag-1000", 1000},   {"dag-5000", 5000},
    {"mlp-2", 2},       {"mlp-8", 8},         {"mlp-32", 32},
};

/// One finished process.
struct ProcessRun {
  double wall_s = 0;
  double cpu_s = 0;
  std::size_t out_bytes = 0;
  int status = -1;
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bench_rwcheck: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(2);
}

// Runs `argv` with standard output into a pipe (counted) and standard error
// to /dev/null; the time is from spawning to reaping.
ProcessRun run_process(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) fail("pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  ProcessRun r;
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0)
    fail("cannot run " + args[0]);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  static char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    r.out_bytes += static_cast<std::size_t>(n);
  }
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) < 0) fail("wait4");
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  r.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path dir = RW_BENCH_GRAPH_DIR;
  std::string rwcheck = RW_RWCHECK_PATH;
  std::string only;
  int runs = 7;
  std::vector<std::string> passed;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--only" && i + 1 < argc) only = argv[++i];
    else if (arg == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--rwcheck" && i + 1 < argc) rwcheck = argv[++i];
    else if (arg == "--") {
      passed.assign(argv + i + 1, argv + argc);
      break;
    } else if (!arg.empty() && arg[0] != '-') dir = arg;
    else {
      std::fprintf(stderr,
                   "usage: bench_rwcheck [GRAPH_DIR] [--rwcheck PATH] [--only NAME] [--runs N] "
                   "[-- RWCHECK_ARGS...]\n");
      return 2;
    }
  }
  for (const Reference& ref : kGraphs) {
    if (!only.empty() && only != ref.name) continue;
    const std::filesystem::path graph = dir / (std::string(ref.name) + ".graph");
    if (!std::filesystem::exists(graph)) {
      std::fprintf(stderr, "bench_rwcheck: no graph %s\n", graph.c_str());
      return 2;
    }
    std::vector<std::string> args{rwcheck};
    args.insert(args.end(), passed.begin(), passed.end());
    args.push_back(graph.string());
    run_process(args);  // warm-up: the page cache, the dynamic loader
    std::vector<double> walls, cpus;
    ProcessRun last;
    for (int k = 0; k < runs; ++k) {
      last = run_process(args);
      walls.push_back(last.wall_s);
      cpus.push_back(last.cpu_s);
    }
    char extra[128];
    std::snprintf(extra, sizeof extra, " cpu_s=%.6g out_bytes=%zu status=%d", median(cpus),
                  last.out_bytes, last.status);
    rw::bench::report(std::string("rwcheck_") + ref.name, ref.n, median(walls), extra);
  }
  return 0;
}
