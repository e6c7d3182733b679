// Reductions: the iteration order, the accumulation policies, deterministic
// parallel chunks, argmax/argmin.
#include "runtime/kernels/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "runtime/detail/loop.hpp"
#include "runtime/detail/program_cache.hpp"
#include "runtime/detail/scalar_math.hpp"
#include "runtime/native_abi.hpp"
#include "runtime/shape.hpp"
#include "runtime/thread_pool.hpp"
#include "support/error.hpp"

namespace rw {

namespace {

// Elements per parallel task and accumulator width of the outer-axis mode.
// Fixed numbers, never derived from the thread count: the chunks a result is
// combined from, and so its rounding, do not depend on the machine.
constexpr std::int64_t kChunkElems = 1 << 16;
constexpr std::int64_t kStripe = 2048;
// Kept inner extent from which reducing the outer axes row by row (vectorised
// over the kept axis) beats gathering strided columns.
constexpr std::int64_t kMinOuterWidth = 16;

// How values of type V are accumulated for a reduction.
template <ReduceOp Op, class V> struct Policy {
  static constexpr bool kFloat = std::is_floating_point_v<V>;
  static constexpr bool kLogic = Op == ReduceOp::Any || Op == ReduceOp::All;
  static constexpr bool kExtreme = Op == ReduceOp::Max || Op == ReduceOp::Min;
  static constexpr bool kHasIdentity = !kExtreme;
  using A = std::conditional_t<
      kLogic, bool,
      std::conditional_t<kExtreme, V,
                         std::conditional_t<kFloat || Op == ReduceOp::Mean, double, std::int64_t>>>;

  static A identity() {
    if constexpr (Op == ReduceOp::Prod) return A(1);
    else if constexpr (Op == ReduceOp::All) return true;
    else return A(0);
  }
  static A to_acc(V v) {
    if constexpr (kLogic) return v != V(0);
    else return static_cast<A>(v);
  }
  static A combine(A a, A b) {
    if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::Mean) {
      if constexpr (std::is_integral_v<A>) return detail::scalar::wrap_add(a, b);
      else return a + b;
    } else if constexpr (Op == ReduceOp::Prod) {
      if constexpr (std::is_integral_v<A>) return detail::scalar::wrap_mul(a, b);
      else return a * b;
    } else if constexpr (Op == ReduceOp::Max) {
      return detail::scalar::Fn<ScalarOp::Maximum>::apply(a, b);
    } else if constexpr (Op == ReduceOp::Min) {
      return detail::scalar::Fn<ScalarOp::Minimum>::apply(a, b);
    } else if constexpr (Op == ReduceOp::Any) {
      return a || b;
    } else {
      return a && b;
    }
  }

  // Pairwise sum: 8 independent accumulators over runs of up to 128, halves
  // above, so the rounding error grows with log(n), not n.
  static double pairwise(const V* p, std::int64_t n) {
    if (n <= 128) {
      double r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      std::int64_t i = 0;
      for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) r[j] += static_cast<double>(p[i + j]);
      double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
      for (; i < n; ++i) s += static_cast<double>(p[i]);
      return s;
    }
    std::int64_t half = n / 2;
    half -= half % 8;
    return pairwise(p, half) + pairwise(p + half, n - half);
  }

  /// The accumulation of p[0..n), n >= 1.
  static A fold(const V* p, std::int64_t n) {
    if constexpr ((Op == ReduceOp::Sum || Op == ReduceOp::Mean) && std::is_same_v<A, double>) {
      return pairwise(p, n);
    } else if constexpr (Op == ReduceOp::Sum) {
      std::uint64_t s = 0;
      for (std::int64_t i = 0; i < n; ++i)
        s += static_cast<std::uint64_t>(static_cast<std::int64_t>(p[i]));
      return static_cast<A>(s);
    } else if constexpr (kExtreme) {
      V m = p[0];
      bool nan = false;
      for (std::int64_t i = 1; i < n; ++i) {
        const V x = p[i];
        if constexpr (Op == ReduceOp::Max) m = x > m ? x : m;
        else m = x < m ? x : m;
        if constexpr (kFloat) nan |= x != x;
      }
      if constexpr (kFloat)
        if (nan || m != m) return std::numeric_limits<V>::quiet_NaN();
      return m;
    } else if constexpr (Op == ReduceOp::Any) {
      bool r = false;
      for (std::int64_t i = 0; i < n; ++i) r |= p[i] != V(0);
      return r;
    } else if constexpr (Op == ReduceOp::All) {
      bool r = true;
      for (std::int64_t i = 0; i < n; ++i) r &= p[i] != V(0);
      return r;
    } else {
      A r = identity();
      for (std::int64_t i = 0; i < n; ++i) r = combine(r, to_acc(p[i]));
      return r;
    }
  }

  /// acc[i] = v[i] (as accumulators).
  static void init(A* acc, const V* v, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) acc[i] = to_acc(v[i]);
  }
  /// acc[i] = combine(acc[i], v[i]).
  static void accumulate(A* acc, const V* v, std::int64_t n) {
#pragma GCC ivdep
    for (std::int64_t i = 0; i < n; ++i) acc[i] = combine(acc[i], to_acc(v[i]));
  }
};

// The result dtype's C++ type and the final conversion.
template <ReduceOp Op, class V, class A> auto finish(A a, std::int64_t count) {
  if constexpr (Op == ReduceOp::Mean) {
    const double m = static_cast<double>(a) / static_cast<double>(count);
    if constexpr (std::is_same_v<V, float>) return static_cast<float>(m);
    else return m;
  } else if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::Prod) {
    if constexpr (std::is_same_v<V, float>) return static_cast<float>(a);
    else return a;
  } else {
    return a;
  }
}

// One reduction over values of one dtype, behind a small virtual interface:
// the loop driver below is compiled once, not once per (op, dtype), and calls
// through it once per block or row, never per element. A partial result is
// an accumulator value of at most 8 bytes, carried as raw bits; a row of
// accumulators is an array of them.
class Folder {
 public:
  virtual ~Folder() = default;
  /// The accumulation of v[0..n), n >= 1.
  virtual std::uint64_t fold(const std::byte* v, std::int64_t n) const = 0;
  /// The combination of two partial results, a first.
  virtual std::uint64_t combine(std::uint64_t a, std::uint64_t b) const = 0;
  /// The empty reduction's value (meaningful only for ops with an identity).
  virtual std::uint64_t identity() const = 0;
  /// acc[i] = v[i], acc[i] = combine(acc[i], v[i]), acc[i] = combine(acc[i], b[i]).
  virtual void init_row(std::byte* acc, const std::byte* v, std::int64_t n) const = 0;
  virtual void add_row(std::byte* acc, const std::byte* v, std::int64_t n) const = 0;
  virtual void merge_row(std::byte* acc, const std::byte* b, std::int64_t n) const = 0;
  /// out[i] = the result of acc[i] over `count` values, in the result dtype.
  virtual void store_row(const std::byte* acc, std::int64_t n, std::int64_t count,
                         std::byte* out) const = 0;
  /// out = the result of partial a.
  virtual void store(std::uint64_t a, std::int64_t count, std::byte* out) const = 0;
  /// Bytes of one accumulator in a row.
  virtual std::size_t acc_size() const = 0;
};

template <ReduceOp Op, class V> class FolderOf final : public Folder {
  using P = Policy<Op, V>;
  using A = typename P::A;
  using O = decltype(finish<Op, V>(A{}, 1));
  static std::uint64_t bits(A a) {
    std::uint64_t b = 0;
    std::memcpy(&b, &a, sizeof(A));
    return b;
  }
  static A value(std::uint64_t b) {
    A a;
    std::memcpy(&a, &b, sizeof(A));
    return a;
  }

 public:
  std::uint64_t fold(const std::byte* v, std::int64_t n) const override {
    return bits(P::fold(reinterpret_cast<const V*>(v), n));
  }
  std::uint64_t combine(std::uint64_t a, std::uint64_t b) const override {
    return bits(P::combine(value(a), value(b)));
  }
  std::uint64_t identity() const override { return bits(P::identity()); }
  void init_row(std::byte* acc, const std::byte* v, std::int64_t n) const override {
    P::init(reinterpret_cast<A*>(acc), reinterpret_cast<const V*>(v), n);
  }
  void add_row(std::byte* acc, const std::byte* v, std::int64_t n) const override {
    P::accumulate(reinterpret_cast<A*>(acc), reinterpret_cast<const V*>(v), n);
  }
  void merge_row(std::byte* acc, const std::byte* b, std::int64_t n) const override {
    A* a = reinterpret_cast<A*>(acc);
    const A* other = reinterpret_cast<const A*>(b);
    for (std::int64_t i = 0; i < n; ++i) a[i] = P::combine(a[i], other[i]);
  }
  void store_row(const std::byte* acc, std::int64_t n, std::int64_t count,
                 std::byte* out) const override {
    const A* a = reinterpret_cast<const A*>(acc);
    O* o = reinterpret_cast<O*>(out);
    for (std::int64_t i = 0; i < n; ++i) o[i] = finish<Op, V>(a[i], count);
  }
  void store(std::uint64_t a, std::int64_t count, std::byte* out) const override {
    *reinterpret_cast<O*>(out) = finish<Op, V>(value(a), count);
  }
  std::size_t acc_size() const override { return sizeof(A); }
};

template <ReduceOp Op> std::unique_ptr<Folder> folder_for(DType t) {
  return visit_dtype(t, [&]<class V>() -> std::unique_ptr<Folder> {
    return std::make_unique<FolderOf<Op, V>>();
  });
}

std::unique_ptr<Folder> make_folder(ReduceOp op, DType t) {
  switch (op) {
    case ReduceOp::Sum: return folder_for<ReduceOp::Sum>(t);
    case ReduceOp::Prod: return folder_for<ReduceOp::Prod>(t);
    case ReduceOp::Max: return folder_for<ReduceOp::Max>(t);
    case ReduceOp::Min: return folder_for<ReduceOp::Min>(t);
    case ReduceOp::Mean: return folder_for<ReduceOp::Mean>(t);
    case ReduceOp::Any: return folder_for<ReduceOp::Any>(t);
    case ReduceOp::All: return folder_for<ReduceOp::All>(t);
  }
  RW_UNREACHABLE("make_folder: a ReduceOp outside the enumeration");
}

// A pairwise (binary counter) accumulator of partial results: partial sums of
// equal weight are added first, so n partials lose only log(n) roundings.
class Cascade {
 public:
  explicit Cascade(const Folder& f) : f_(f) {}
  void add(std::uint64_t v) {
    int i = 0;
    while (used_[i]) {
      v = f_.combine(level_[i], v);
      used_[i] = false;
      ++i;
    }
    level_[i] = v;
    used_[i] = true;
    top_ = std::max(top_, i + 1);
  }
  std::uint64_t total() const {
    bool have = false;
    std::uint64_t t = 0;
    for (int i = 0; i < top_; ++i)
      if (used_[i]) {
        t = have ? f_.combine(level_[i], t) : level_[i];
        have = true;
      }
    return t;
  }
  void reset() {
    for (int i = 0; i < top_; ++i) used_[i] = false;
    top_ = 0;
  }

 private:
  const Folder& f_;
  std::uint64_t level_[64]{};
  bool used_[64]{};
  int top_ = 0;
};

// The reduction's iteration space: broadcast shape, reduced axes, order.
struct Space {
  Shape shape;                // broadcast shape of the inputs
  SmallVec<char, 8> reduced;  // per axis
  std::int64_t K = 1, R = 1;  // kept and reduced element counts
  Shape out_shape;            // kept axes (keepdims applied)
};

Space make_space(const Shape& shape, const Axes& axes, bool keepdims) {
  Space s;
  s.shape = shape;
  const auto nd = static_cast<std::int64_t>(shape.size());
  s.reduced.assign(shape.size(), axes.is_all() ? 1 : 0);
  if (!axes.is_all())
    for (std::int64_t a : normalize_axes(axes.list(), nd))
      s.reduced[static_cast<std::size_t>(a)] = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (s.reduced[d]) {
      s.R *= shape[d];
      if (keepdims) s.out_shape.push_back(1);
    } else {
      s.K *= shape[d];
      s.out_shape.push_back(shape[d]);
    }
  }
  return s;
}

std::string axes_text(const Axes& axes) {
  return axes.is_all() ? "all axes" : "axes " + shape_to_string(axes.list());
}

// Runs `task(t0, t1)` over [0, n) on the pool when `parallel`, else here.
template <class Task> void run_tasks(bool parallel, std::int64_t n, Task&& task) {
  if (parallel) parallel_for(n, 1, task);
  else task(std::int64_t{0}, n);
}

// Inner mode: output k reduces the flat range [k R, (k + 1) R), cut into the
// blocks of `loop`. Chunks of blocks run as tasks; an output entirely inside
// a chunk is written there, the partial results of outputs that straddle
// chunks are combined after, in chunk order. make_eval() gives each task an
// evaluator: eval(first, count) -> the `count` values there, densely.
template <class MakeEval>
void reduce_inner(const Folder& f, std::int64_t R, const detail::Loop& loop, bool parallel,
                  std::int64_t in_size, std::byte* dst, std::int64_t out_size,
                  MakeEval&& make_eval) {
  const std::int64_t blocks = loop.num_blocks();
  const std::int64_t per_task = std::max<std::int64_t>(1, kChunkElems / loop.max_block());
  const std::int64_t tasks = (blocks + per_task - 1) / per_task;
  struct Partial {
    std::int64_t k;
    std::uint64_t value;
  };
  std::vector<std::vector<Partial>> partials(static_cast<std::size_t>(tasks));
  run_tasks(parallel, tasks, [&](std::int64_t t0, std::int64_t t1) {
    auto eval = make_eval();
    for (std::int64_t t = t0; t < t1; ++t) {
      std::int64_t first = 0, count = 0;
      loop.block_range(t * per_task, first, count);
      const std::int64_t chunk_begin = first;
      std::int64_t cur = -1;
      Cascade acc(f);
      auto flush = [&](std::int64_t end) {
        if (cur < 0) return;
        const bool whole = cur * R >= chunk_begin && end == (cur + 1) * R;
        if (whole) f.store(acc.total(), R, dst + cur * out_size);
        else partials[static_cast<std::size_t>(t)].push_back({cur, acc.total()});
        acc.reset();
      };
      std::int64_t pos = first;
      for (std::int64_t b = t * per_task; b < std::min(blocks, (t + 1) * per_task); ++b) {
        loop.block_range(b, first, count);
        const std::byte* v = eval(first, count);
        for (pos = first; pos < first + count;) {
          const std::int64_t k = pos / R;
          const std::int64_t end = std::min((k + 1) * R, first + count);
          if (k != cur) {
            flush(pos);
            cur = k;
          }
          acc.add(f.fold(v + (pos - first) * in_size, end - pos));
          pos = end;
        }
      }
      flush(pos);
    }
  });
  std::int64_t cur = -1;
  Cascade acc(f);
  for (const auto& list : partials)
    for (const Partial& p : list) {
      if (p.k != cur) {
        if (cur >= 0) f.store(acc.total(), R, dst + cur * out_size);
        acc.reset();
        cur = p.k;
      }
      acc.add(p.value);
    }
  if (cur >= 0) f.store(acc.total(), R, dst + cur * out_size);
}

// How the outer mode cuts its work: Ko x Ki results (Ki the kept axis dense
// in memory) in stripes of W, over R rows in chunks of rows_per_task, rows
// evaluated rows_per_eval at a time.
struct OuterPlan {
  std::int64_t Ko, Ki, R, W, stripes, rows_per_eval, rows_per_task, rchunks, tasks;
};

OuterPlan outer_plan(std::int64_t Ko, std::int64_t Ki, std::int64_t R) {
  OuterPlan p{Ko, Ki, R, std::min(Ki, kStripe), 0, 0, 0, 0, 0};
  p.stripes = (Ki + p.W - 1) / p.W;
  p.rows_per_eval = Ki >= kStripe ? 1 : std::max<std::int64_t>(1, kStripe / Ki);
  p.rows_per_task = std::max<std::int64_t>(1, kChunkElems / p.W);
  p.rows_per_task = (p.rows_per_task + p.rows_per_eval - 1) / p.rows_per_eval * p.rows_per_eval;
  p.rchunks = (R + p.rows_per_task - 1) / p.rows_per_task;
  p.tasks = Ko * p.stripes * p.rchunks;
  return p;
}

// Outer mode: each result accumulates its rows in order, row after row (a
// row of values into a row of accumulators); chunks of rows are merged after,
// in order. make_eval() gives each task an evaluator: eval(ko, r, k0, g, w)
// -> the values of rows r .. r + g of results [k0, k0 + w) of outer index
// ko, as {pointer, bytes from one row to the next}.
template <class MakeEval>
void reduce_outer(const Folder& f, const OuterPlan& p, bool parallel, std::byte* dst,
                  std::int64_t out_size, MakeEval&& make_eval) {
  const auto acc_size = static_cast<std::int64_t>(f.acc_size());
  const std::int64_t W = p.W, Ki = p.Ki, R = p.R, rchunks = p.rchunks, stripes = p.stripes;
  const auto partial = std::make_unique<std::byte[]>(
      static_cast<std::size_t>(rchunks > 1 ? p.tasks * W * acc_size : 0));
  run_tasks(parallel, p.tasks, [&](std::int64_t t0, std::int64_t t1) {
    auto eval = make_eval();
    const auto local = std::make_unique<std::byte[]>(static_cast<std::size_t>(W * acc_size));
    for (std::int64_t t = t0; t < t1; ++t) {
      const std::int64_t c = t % rchunks, s = (t / rchunks) % stripes, ko = t / (rchunks * stripes);
      const std::int64_t k0 = s * W, w = std::min(W, Ki - k0);
      const std::int64_t r0 = c * p.rows_per_task, r1 = std::min(R, r0 + p.rows_per_task);
      std::byte* acc = rchunks > 1 ? partial.get() + t * W * acc_size : local.get();
      bool started = false;
      for (std::int64_t r = r0; r < r1;) {
        const std::int64_t g = w == Ki ? std::min(p.rows_per_eval, r1 - r) : 1;
        const auto [v, row_bytes] = eval(ko, r, k0, g, w);
        for (std::int64_t row = 0; row < g; ++row) {
          if (!started) f.init_row(acc, v + row * row_bytes, w);
          else f.add_row(acc, v + row * row_bytes, w);
          started = true;
        }
        r += g;
      }
      if (rchunks == 1) f.store_row(acc, w, R, dst + (ko * Ki + k0) * out_size);
    }
  });
  if (rchunks == 1) return;
  run_tasks(parallel, p.Ko * stripes, [&](std::int64_t q0, std::int64_t q1) {
    for (std::int64_t q = q0; q < q1; ++q) {
      const std::int64_t s = q % stripes, ko = q / stripes;
      const std::int64_t k0 = s * W, w = std::min(W, Ki - k0);
      std::byte* acc = partial.get() + q * rchunks * W * acc_size;
      for (std::int64_t c = 1; c < rchunks; ++c) f.merge_row(acc, acc + c * W * acc_size, w);
      f.store_row(acc, w, R, dst + (ko * Ki + k0) * out_size);
    }
  });
}

// A row of values for reduce_outer: where it starts, and the bytes to the next.
struct Rows {
  const std::byte* values;
  std::int64_t row_bytes;
};

// Runs `program` (one output) reduced by `f` into `out` (contiguous, K
// elements of the result dtype).
void reduce_loop(const Folder& f, const ScalarProgram& program, std::span<const Tensor> inputs,
                 const Space& sp, Tensor& out) {
  auto* dst = static_cast<std::byte*>(out.raw_data());
  const auto out_size = static_cast<std::int64_t>(itemsize(out.dtype()));
  const auto in_size = static_cast<std::int64_t>(itemsize(program.output_dtype(0)));
  const std::int64_t K = sp.K, R = sp.R;
  if (K == 0) return;
  if (R == 0) {
    for (std::int64_t k = 0; k < K; ++k) f.store(f.identity(), 0, dst + k * out_size);
    return;
  }

  // Order of iteration: kept axes outside (the output's order), reduced axes
  // inside, sorted by the first input's memory strides; or, when the last
  // kept axis is the one dense in memory, the reduced axes outside it and the
  // rows of values accumulated into a row of results.
  const std::size_t nd = sp.shape.size();
  const bool have_input = !inputs.empty();
  const Strides lead = have_input ? detail::loop_operand(inputs[0], sp.shape).strides : Strides{};
  auto mag = [&](std::size_t d) -> std::int64_t { return have_input ? std::abs(lead[d]) : 0; };
  SmallVec<std::size_t, 8> kept, red;
  for (std::size_t d = 0; d < nd; ++d) (sp.reduced[d] ? red : kept).push_back(d);
  std::stable_sort(red.begin(), red.end(),
                   [&](std::size_t a, std::size_t b) { return mag(a) > mag(b); });
  // One value per result (R == 1: a sum over axes of extent 1, as of a batch
  // of one) takes the outer mode too: a row is copied into its results,
  // where the inner mode folded and stored each value on its own (16K
  // instructions for the 64 values of a step of an RNN's gradient).
  bool outer = false;
  if (!kept.empty() && have_input) {
    const std::size_t last = kept.back();
    std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
    for (std::size_t d = 0; d < nd; ++d)
      if (sp.shape[d] > 1 && mag(d) != 0) smallest = std::min(smallest, mag(d));
    outer = sp.shape[last] >= kMinOuterWidth && mag(last) == smallest;
  }
  SmallVec<std::size_t, 8> order(kept.begin(), kept.end() - (outer ? 1 : 0));
  for (std::size_t d : red) order.push_back(d);
  if (outer) order.push_back(kept.back());

  Shape shape;
  for (std::size_t d : order) shape.push_back(sp.shape[d]);
  std::vector<detail::LoopOperand> ops;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    detail::LoopOperand op = detail::loop_operand(inputs[i], sp.shape);
    Strides permuted;
    for (std::size_t d : order) permuted.push_back(op.strides[d]);
    op.strides = std::move(permuted);
    ops.push_back(std::move(op));
  }
  const Reg result = program.outputs()[0];
  const detail::ProgramPlan plan(program);
  const bool parallel =
      K * R * (program.cost() + 1) >= detail::kParallelWork && num_threads() > 1;

  if (outer) {
    const std::int64_t Ki = sp.shape[kept.back()];
    const OuterPlan p = outer_plan(K / Ki, Ki, R);
    const detail::Loop loop(shape, std::move(ops), p.rows_per_eval * p.W);
    reduce_outer(f, p, parallel, dst, out_size, [&] {
      return [&, ev = std::make_unique<detail::BlockEvaluator>(program, plan, loop, false)](
                 std::int64_t ko, std::int64_t r, std::int64_t k0, std::int64_t g,
                 std::int64_t w) {
        ev->eval((ko * R + r) * Ki + k0, g * w);
        return Rows{ev->values(result), w * in_size};
      };
    });
    return;
  }
  const detail::Loop loop(shape, std::move(ops), detail::block_size(program, plan));
  reduce_inner(f, R, loop, parallel, in_size, dst, out_size, [&] {
    return [&, ev = std::make_unique<detail::BlockEvaluator>(program, plan, loop, false)](
               std::int64_t first, std::int64_t count) {
      ev->eval(first, count);
      return ev->values(result);
    };
  });
}

Tensor reduce_impl(ReduceOp op, const ScalarProgram& program, std::span<const Tensor> inputs,
                   const Axes& axes, bool keepdims) {
  if (program.num_outputs() != 1)
    throw ValueError(fmt::format("`{}` of a program needs exactly 1 output, it has {}",
                                 reduce_op_name(op), program.num_outputs()));
  if (inputs.size() != program.num_inputs())
    throw ValueError(
        fmt::format("the program takes {} inputs, got {}", program.num_inputs(), inputs.size()));
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].valid()) throw ValueError(fmt::format("input {} is null", i));
    if (inputs[i].dtype() != program.input_dtype(i))
      throw ValueError(fmt::format("input {} is {}, the program expects {}", i,
                                   dtype_name(inputs[i].dtype()),
                                   dtype_name(program.input_dtype(i))));
    shapes.push_back(inputs[i].shape());
  }
  const Shape shape = broadcast_shapes(shapes);
  const Space sp = make_space(shape, axes, keepdims);
  const DType in = program.output_dtype(0);
  if (sp.R == 0 && sp.K > 0 && (op == ReduceOp::Max || op == ReduceOp::Min))
    throw ValueError(fmt::format("`{}` of an empty reduction has no identity: shape {}, {}",
                                 reduce_op_name(op), shape_to_string(shape), axes_text(axes)));
  Tensor out = Tensor::empty(reduce_result_dtype(op, in), sp.out_shape);
  reduce_loop(*make_folder(op, in), program, inputs, sp, out);
  return out;
}

// The program whose output is its input (a cast to the same dtype emits no
// instruction), from the per-thread cache.
const ScalarProgram& identity_program(DType dtype) {
  return detail::single_op_program(ScalarOp::Cast, std::span<const DType>(&dtype, 1), dtype);
}

// Index of the first extreme of each row of the reduced axes, NaN first.
template <bool kMax, class V> void arg_typed(const Tensor& x, const Space& sp, Tensor& out) {
  std::int64_t* dst = out.data<std::int64_t>();
  const std::int64_t K = sp.K, R = sp.R;
  if (K == 0) return;
  // Row-major over the reduced axes (the flat index NumPy reports), kept axes outside.
  SmallVec<std::size_t, 8> order;
  for (std::size_t d = 0; d < sp.shape.size(); ++d)
    if (!sp.reduced[d]) order.push_back(d);
  for (std::size_t d = 0; d < sp.shape.size(); ++d)
    if (sp.reduced[d]) order.push_back(d);
  Shape shape;
  detail::LoopOperand op = detail::loop_operand(x, sp.shape);
  Strides strides;
  for (std::size_t d : order) {
    shape.push_back(sp.shape[d]);
    strides.push_back(op.strides[d]);
  }
  op.strides = std::move(strides);
  std::vector<detail::LoopOperand> ops = {std::move(op)};
  const detail::Loop loop(shape, std::move(ops), detail::kSingleBlock);
  const ScalarProgram& program = identity_program(x.dtype());
  const detail::ProgramPlan plan(program);
  struct Best {
    V value;
    std::int64_t index;
  };
  auto better = [](V a, V b) {  // a beats the current best b
    if constexpr (std::is_floating_point_v<V>) {
      if (b != b) return false;
      if (a != a) return true;
    }
    return kMax ? a > b : a < b;
  };
  const std::int64_t blocks = loop.num_blocks();
  const std::int64_t per_task = std::max<std::int64_t>(1, kChunkElems / loop.max_block());
  const std::int64_t tasks = (blocks + per_task - 1) / per_task;
  struct Partial {
    std::int64_t k;
    Best best;
  };
  std::vector<std::vector<Partial>> partials(static_cast<std::size_t>(tasks));
  auto task = [&](std::int64_t t0, std::int64_t t1) {
    detail::BlockEvaluator ev(program, plan, loop, false);
    for (std::int64_t t = t0; t < t1; ++t) {
      std::int64_t cur = -1;
      Best best{};
      for (std::int64_t b = t * per_task; b < std::min(blocks, (t + 1) * per_task); ++b) {
        std::int64_t first, count;
        loop.block_range(b, first, count);
        ev.eval(first, count);
        const V* v = reinterpret_cast<const V*>(ev.values(program.outputs()[0]));
        for (std::int64_t i = 0; i < count; ++i) {
          const std::int64_t pos = first + i, k = pos / R;
          if (k != cur) {
            if (cur >= 0) partials[static_cast<std::size_t>(t)].push_back({cur, best});
            cur = k;
            best = {v[i], pos - k * R};
          } else if (better(v[i], best.value)) {
            best = {v[i], pos - k * R};
          }
        }
      }
      if (cur >= 0) partials[static_cast<std::size_t>(t)].push_back({cur, best});
    }
  };
  if (K * R >= detail::kParallelWork && num_threads() > 1) parallel_for(tasks, 1, task);
  else task(0, tasks);
  std::int64_t cur = -1;
  Best best{};
  for (const auto& list : partials)
    for (const Partial& p : list) {
      if (p.k != cur) {
        if (cur >= 0) dst[cur] = best.index;
        cur = p.k;
        best = p.best;
      } else if (better(p.best.value, best.value)) {
        best = p.best;
      }
    }
  if (cur >= 0) dst[cur] = best.index;
}

Tensor arg_impl(bool is_max, const Tensor& x, std::optional<std::int64_t> axis, bool keepdims) {
  const char* name = is_max ? "argmax" : "argmin";
  if (!x.valid()) throw ValueError(fmt::format("`{}` of a null tensor", name));
  std::vector<std::int64_t> list;
  if (axis) list.push_back(*axis);
  const Axes axes = axis ? Axes(std::span<const std::int64_t>(list)) : Axes::all();
  const Space sp = make_space(x.shape(), axes, keepdims);
  if (sp.R == 0 && sp.K > 0)
    throw ValueError(fmt::format("`{}` of an empty sequence: shape {}, {}", name,
                                 shape_to_string(x.shape()), axes_text(axes)));
  Tensor out = Tensor::empty(DType::Int64, sp.out_shape);
  visit_dtype(x.dtype(), [&]<class V>() {
    if (is_max) arg_typed<true, V>(x, sp, out);
    else arg_typed<false, V>(x, sp, out);
  });
  return out;
}

}  // namespace

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::Mean: return "mean";
    case ReduceOp::Any: return "any";
    case ReduceOp::All: return "all";
  }
  return "?";
}

DType reduce_result_dtype(ReduceOp op, DType input) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod: return is_float(input) ? input : DType::Int64;
    case ReduceOp::Mean: return input == DType::Float32 ? DType::Float32 : DType::Float64;
    case ReduceOp::Max:
    case ReduceOp::Min: return input;
    case ReduceOp::Any:
    case ReduceOp::All: return DType::Bool;
  }
  return input;
}

Tensor reduce(ReduceOp op, const Tensor& x, const Axes& axes, bool keepdims) {
  if (!x.valid()) throw ValueError(fmt::format("`{}` of a null tensor", reduce_op_name(op)));
  const ScalarProgram& p = identity_program(x.dtype());
  return reduce_impl(op, p, std::span<const Tensor>(&x, 1), axes, keepdims);
}

Tensor sum(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(ReduceOp::Sum, x, axes, keepdims);
}
Tensor prod(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(ReduceOp::Prod, x, axes, keepdims);
}
Tensor max(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(ReduceOp::Max, x, axes, keepdims);
}
Tensor min(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(ReduceOp::Min, x, axes, keepdims);
}
Tensor mean(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(ReduceOp::Mean, x, axes, keepdims);
}
Tensor any(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(ReduceOp::Any, x, axes, keepdims);
}
Tensor all(const Tensor& x, const Axes& axes, bool keepdims) {
  return reduce(ReduceOp::All, x, axes, keepdims);
}

Tensor argmax(const Tensor& x, std::optional<std::int64_t> axis, bool keepdims) {
  return arg_impl(true, x, axis, keepdims);
}

Tensor argmin(const Tensor& x, std::optional<std::int64_t> axis, bool keepdims) {
  return arg_impl(false, x, axis, keepdims);
}

Tensor reduce_program(ReduceOp op, const ScalarProgram& program, std::span<const Tensor> inputs,
                      const Axes& axes, bool keepdims) {
  return reduce_impl(op, program, inputs, axes, keepdims);
}

int native_reduce(rw_ctx* ctx, const rw_reduce_job* job) {
  try {
    const auto op = static_cast<ReduceOp>(job->op);
    const auto dtype = static_cast<DType>(job->dtype);
    const std::int64_t K = job->kept, R = job->reduced, Ki = job->inner;
    auto* dst = static_cast<std::byte*>(job->out);
    const auto out_size = static_cast<std::int64_t>(itemsize(reduce_result_dtype(op, dtype)));
    const auto in_size = static_cast<std::int64_t>(itemsize(dtype));
    const auto* given = static_cast<const std::byte*>(job->values_in);
    if (K == 0) return kNativeOk;
    if (R == 0 && (op == ReduceOp::Max || op == ReduceOp::Min)) return kNativeFallback;
    const std::unique_ptr<Folder> f = make_folder(op, dtype);
    if (R == 0) {
      for (std::int64_t k = 0; k < K; ++k) f->store(f->identity(), 0, dst + k * out_size);
      return kNativeOk;
    }
    const bool parallel = K * R * (job->cost + 1) >= detail::kParallelWork && num_threads() > 1;
    // The interpreter's choice for a dense input 0 (reduce_loop): the outer
    // mode when the last kept axis is the one dense in memory, which for the
    // flat layouts here is: the reduced axes lead, or they trail with R == 1.
    if (job->lead_dense && Ki >= kMinOuterWidth && (job->leading || R == 1)) {
      const OuterPlan p = outer_plan(K / Ki, Ki, R);
      reduce_outer(*f, p, parallel, dst, out_size, [&] {
        const std::size_t bytes =
            given ? 0 : static_cast<std::size_t>(p.rows_per_eval * p.W * in_size);
        return [&, buf = std::vector<std::byte>(bytes)](std::int64_t ko, std::int64_t r,
                                                        std::int64_t k0, std::int64_t g,
                                                        std::int64_t w) mutable {
          // Row r of outer index ko starts at (r Ko + ko) Ki in memory.
          const std::int64_t first = (r * p.Ko + ko) * Ki + k0, step = p.Ko * Ki;
          if (given) return Rows{given + first * in_size, step * in_size};
          if (p.Ko == 1) {  // g > 1 only when w == Ki: the rows are consecutive
            job->eval(job->data, first, g * w, buf.data());
          } else {
            for (std::int64_t row = 0; row < g; ++row)
              job->eval(job->data, first + row * step, w, buf.data() + row * w * in_size);
          }
          return Rows{buf.data(), w * in_size};
        };
      });
      return kNativeOk;
    }
    // Otherwise the inner mode: output k folds values k R .. (k + 1) R,
    // evaluated a block at a time by `eval` (or read from `given`).
    auto inner = [&](const detail::Loop& loop, auto* eval, const void* data,
                     const std::byte* values) {
      reduce_inner(*f, R, loop, parallel, in_size, dst, out_size, [&] {
        const std::size_t bytes = values ? 0 : static_cast<std::size_t>(loop.max_block() * in_size);
        return [&, buf = std::vector<std::byte>(bytes)](std::int64_t first,
                                                        std::int64_t count) mutable {
          if (values) return values + first * in_size;
          eval(data, first, count, buf.data());
          return static_cast<const std::byte*>(buf.data());
        };
      });
    };
    if (job->leading && K > 1 && R > 1) {
      // Kept axes outside, reduced inside: for dense inputs the interpreter's
      // loop is (K, R) with strides (1, K), which it does not merge.
      if (!job->eval_kr) return kNativeFallback;
      detail::LoopOperand rows;
      rows.itemsize = in_size;
      rows.strides.push_back(1);
      rows.strides.push_back(K);
      const std::int64_t shape[2] = {K, R};
      std::vector<detail::LoopOperand> ops{std::move(rows)};
      inner(detail::Loop(shape, std::move(ops), job->block), job->eval_kr, job->data_kr, nullptr);
      return kNativeOk;
    }
    // The reduced axes trail (or only one axis has more than one element):
    // the loop merges into one dimension, the flat order of memory.
    const std::int64_t size = K * R;
    inner(detail::Loop(std::span<const std::int64_t>(&size, 1), {}, job->block), job->eval,
          job->data, given);
    return kNativeOk;
  } catch (const std::exception&) {  // no memory, or no thread for the pool
    ctx->message = "reduce: the reduction's buffers or tasks could not be made";
    return kNativeFail;
  }
}

}  // namespace rw
