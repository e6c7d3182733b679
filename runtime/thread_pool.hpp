// ThreadPool: a few persistent worker threads that run data-parallel loops.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace rw {

/// A non-owning reference to a callable `void(std::int64_t begin, std::int64_t end)`;
/// cheaper than std::function (no allocation), valid while the callable lives.
class RangeFn {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RangeFn>>>
  RangeFn(F&& f)  // NOLINT: implicit, like std::function
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, std::int64_t b, std::int64_t e) {
          (*static_cast<std::remove_reference_t<F>*>(o))(b, e);
        }) {}
  /// Calls the referenced callable on [begin, end).
  void operator()(std::int64_t begin, std::int64_t end) const { call_(object_, begin, end); }

 private:
  void* object_;
  void (*call_)(void*, std::int64_t, std::int64_t);
};

/// Worker threads that split a loop over [0, n) into chunks and run them in
/// parallel; the calling thread takes part. Chunk boundaries depend only on `n`
/// and `grain`, never on timing or on the number of threads, so a kernel that
/// combines per-chunk results in chunk order is deterministic.
///
/// A loop started from inside a running loop (nested), or while another thread
/// is using the pool, runs serially on the calling thread: never a deadlock.
class ThreadPool {
 public:
  /// A pool that runs loops on `num_threads` threads in all (the caller and
  /// num_threads - 1 workers); at least 1.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Threads a loop runs on, the caller included.
  int num_threads() const { return threads_.load(std::memory_order_relaxed); }
  /// Stops the workers and starts `num_threads - 1` new ones; waits for a loop
  /// in progress to finish first.
  void resize(int num_threads);

  /// Calls body(b, e) for consecutive chunks [b, e) of [0, n), each `grain`
  /// long except possibly the last, and returns when all are done. The first
  /// exception a chunk throws is rethrown here (chunks not yet started are
  /// skipped).
  void parallel_for(std::int64_t n, std::int64_t grain, RangeFn body);

 private:
  struct Job;
  void start_workers(int count);
  void stop_workers();
  void worker_main();
  static void run_chunks(Job& job);

  std::mutex submit_mu_;  // one loop at a time; held for the whole loop
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  Job* job_ = nullptr;
  std::uint64_t generation_ = 0;
  int active_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
  std::atomic<int> threads_{1};
};

/// The process-wide pool the kernels use, created on first use with
/// `RW_NUM_THREADS` threads when that environment variable is a positive
/// integer, else std::thread::hardware_concurrency().
ThreadPool& default_thread_pool();
/// Resizes the default pool (1 = run every kernel on the calling thread).
/// Throws ValueError for a count below 1.
void set_num_threads(int num_threads);
/// Threads of the default pool.
int num_threads();

/// parallel_for on the default pool.
inline void parallel_for(std::int64_t n, std::int64_t grain, RangeFn body) {
  default_thread_pool().parallel_for(n, grain, body);
}

}  // namespace rw
