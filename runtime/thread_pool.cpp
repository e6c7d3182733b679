// ThreadPool: persistent workers, chunked loops, the default pool.
#include "runtime/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "support/error.hpp"

namespace rw {

namespace {
// True on a thread while it runs chunks of a loop: a loop started there is nested.
thread_local bool t_in_loop = false;

struct LoopFlag {
  bool saved = t_in_loop;
  LoopFlag() { t_in_loop = true; }
  ~LoopFlag() { t_in_loop = saved; }
};
}  // namespace

struct ThreadPool::Job {
  RangeFn body;
  std::int64_t n;
  std::int64_t grain;
  std::int64_t chunks;
  std::atomic<std::int64_t> next{0};
  std::atomic<std::int64_t> done{0};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::exception_ptr error;
};

ThreadPool::ThreadPool(int num_threads) {
  start_workers(std::max(num_threads, 1) - 1);
}

ThreadPool::~ThreadPool() {
  stop_workers();
}

void ThreadPool::start_workers(int count) {
  stop_ = false;
  threads_.store(count + 1, std::memory_order_relaxed);
  workers_.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) workers_.emplace_back([this] { worker_main(); });
}

void ThreadPool::stop_workers() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::resize(int num_threads) {
  if (num_threads < 1)
    throw ValueError(fmt::format("thread count must be at least 1, got {}", num_threads));
  std::lock_guard submit(submit_mu_);
  if (num_threads == this->num_threads()) return;
  stop_workers();
  start_workers(num_threads - 1);
}

void ThreadPool::run_chunks(Job& job) {
  LoopFlag flag;
  for (;;) {
    const std::int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
    if (c >= job.chunks) return;
    if (!job.failed.load(std::memory_order_relaxed)) {
      const std::int64_t b = c * job.grain;
      try {
        job.body(b, std::min(job.n, b + job.grain));
      } catch (...) {
        std::lock_guard lk(job.error_mu);
        if (!job.error) job.error = std::current_exception();
        job.failed.store(true, std::memory_order_relaxed);
      }
    }
    job.done.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::worker_main() {
  std::uint64_t seen = 0;
  for (;;) {
    Job* job = nullptr;
    {
      std::unique_lock lk(mu_);
      work_cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      if (!job) continue;
      ++active_;
    }
    run_chunks(*job);
    {
      std::lock_guard lk(mu_);
      --active_;
    }
    done_cv_.notify_all();
  }
}

void ThreadPool::parallel_for(std::int64_t n, std::int64_t grain, RangeFn body) {
  if (n <= 0) return;
  grain = std::max<std::int64_t>(grain, 1);
  const std::int64_t chunks = (n + grain - 1) / grain;
  std::unique_lock submit(submit_mu_, std::defer_lock);
  // workers_ is read only under submit_mu_, which resize() holds to change it.
  if (chunks == 1 || t_in_loop || !submit.try_lock() || workers_.empty()) {
    // Serial, in the same chunks, so that results do not depend on whether the
    // loop ran in parallel.
    LoopFlag flag;
    for (std::int64_t b = 0; b < n; b += grain) body(b, std::min(n, b + grain));
    return;
  }
  Job job{body, n, grain, chunks};
  {
    std::lock_guard lk(mu_);
    job_ = &job;
    ++generation_;
  }
  work_cv_.notify_all();
  run_chunks(job);
  {
    std::unique_lock lk(mu_);
    // Workers that have not picked the job up by now never will: they see
    // job_ == nullptr. Those that did are counted in active_.
    done_cv_.wait(
        lk, [&] { return job.done.load(std::memory_order_acquire) == job.chunks && active_ == 0; });
    job_ = nullptr;
  }
  if (job.error) std::rethrow_exception(job.error);
}

namespace {
int default_thread_count() {
  if (const char* env = std::getenv("RW_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0) return static_cast<int>(std::min(v, 256L));
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}
}  // namespace

ThreadPool& default_thread_pool() {
  static ThreadPool pool(default_thread_count());
  return pool;
}

void set_num_threads(int num_threads) {
  default_thread_pool().resize(num_threads);
}

int num_threads() {
  return default_thread_pool().num_threads();
}

}  // namespace rw
