// bench_sparse: a compiled structured_dot (sparse × dense) against calling
// Eigen directly on the same arrays, in the same run (issue 24's row).
//
//   build/tools/bench_sparse            # n = 10^5, density 10^-4, 64 columns
//   build/tools/bench_sparse 20000      # a smaller n, same density and columns
//
// Each line: `bench=NAME n=N median_s=X wall_s=Y …`: medians of kRuns calls
// after one warm-up, the variants taking turns; `median_s` is the thread's CPU time (what the load of a
// shared machine does not inflate), `wall_s` the wall time. The Eigen rows
// multiply an Eigen::Map of the same CSR arrays by the same row-major dense
// matrix into a preallocated result (`eigen`), into a new result each call
// (`eigen_fresh`), and a column-major copy (`eigen_colmajor`, Eigen's default
// layout). `ratio` is X / eigen; `ratio_fresh` compares `rwgraph`, which
// returns a new result each call, with `eigen_fresh`.
// `rwgraph` is the compiled function as compiled by default (a new result
// each call), `rwgraph_keep` the same with allow_gc = false (it writes into
// the buffer it kept when the caller has dropped the last result).
// `kernel` is rw::sparse_dense_dot writing into a kept result, `filter` the
// check of the sparse argument that each call of the function makes.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <rw/rw.hpp>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <fmt/format.h>

#include "bench_util.hpp"
#include "runtime/kernels/sparse.hpp"

namespace {

using rw::bench::load_average;
using rw::bench::report;
using rw::bench::thread_cpu_seconds;

constexpr int kRuns = 15;
constexpr std::int64_t kCols = 64;

// An n × n CSR matrix with `per_row` entries in each row at distinct random
// columns, values in [-1, 1).
rw::Tensor random_csr(std::int64_t n, std::int64_t per_row, std::uint64_t seed) {
  rw::Rng rng(seed);
  rw::SparseBuffer b = rw::allocate_sparse(rw::SparseFormat::Csr, rw::f64, n, n, n * per_row);
  std::vector<rw::SparseIndex> cols;
  std::int64_t k = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    b.indptr[r] = static_cast<rw::SparseIndex>(k);
    cols.clear();
    while (static_cast<std::int64_t>(cols.size()) < per_row) {
      const auto c = static_cast<rw::SparseIndex>(rng.next_u64() % static_cast<std::uint64_t>(n));
      if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    for (rw::SparseIndex c : cols) {
      b.indices[k] = c;
      b.values<double>()[k++] = static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-52 - 1.0;
    }
  }
  b.indptr[n] = static_cast<rw::SparseIndex>(k);
  return b.value;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 100000;
  const double density = 1e-4;
  const std::int64_t per_row = std::max<std::int64_t>(1, static_cast<std::int64_t>(density * static_cast<double>(n) + 0.5));
  const rw::Tensor s = random_csr(n, per_row, 1);
  const rw::Tensor d = rw::Rng(2).uniform({n, kCols}, -1, 1);
  const rw::SparseView v = rw::sparse_view(s);

  // rwgraph: the compiled function, inputs passed at each call (and checked).
  const rw::Var sv = rw::sparse_matrix("s", rw::SparseFormat::Csr, rw::f64);
  const rw::Var dv = rw::matrix("d", rw::f64);
  auto f = rw::function({sv, dv}, rw::structured_dot(sv, dv));
  rw::Tensor result;
  auto run_rwgraph = [&] {
    result = rw::Tensor();  // the function may reuse its output's buffer when nothing holds it
    result = f(s, d);
  };
  // The same with allow_gc = false: the function keeps its output buffer and
  // writes into it again when the caller has let the last result go, as
  // Eigen writes into a preallocated result.
  auto g = rw::function({sv, dv}, rw::structured_dot(sv, dv), {.allow_gc = false});
  rw::Tensor kept_result;
  auto run_rwgraph_keep = [&] {
    kept_result = rw::Tensor();
    kept_result = g(s, d);
  };
  // The kernel alone writing into a kept result, and the check of the sparse
  // argument each call makes (SparseType::filter).
  rw::Tensor kept = rw::Tensor::empty(rw::f64, {n, kCols});
  auto run_kernel = [&] { kept = rw::sparse_dense_dot(s, d, kept); };
  const auto type = rw::SparseType::make(rw::SparseFormat::Csr, rw::f64);
  auto run_filter = [&] { (void)type->filter(s); };

  // Eigen directly, on the same arrays and the same row-major dense matrix.
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, rw::SparseIndex>> es(
      v.rows, v.cols, v.nnz, v.indptr, v.indices, v.values<double>());
  const Eigen::Map<const RowMat> ed(d.data<double>(), n, kCols);
  RowMat out(n, kCols);
  auto run_eigen = [&] { out.noalias() = es * ed; };
  // Eigen with a new result each call, as the function compiled by default
  // gives one: the fair partner of `rwgraph`.
  RowMat fresh;
  auto run_eigen_fresh = [&] {
    fresh = RowMat();
    fresh.noalias() = es * ed;
  };
  const Eigen::MatrixXd ed_col = ed;
  Eigen::MatrixXd out_col(n, kCols);
  auto run_eigen_col = [&] { out_col.noalias() = es * ed_col; };

  // The variants take turns, so that a change of the machine's load falls on
  // all of them alike; medians of each.
  std::vector<std::function<void()>> runs = {run_rwgraph, run_rwgraph_keep, run_kernel,
                                             run_filter,  run_eigen,        run_eigen_col,
                                             run_eigen_fresh};
  std::vector<std::vector<double>> cpu(runs.size()), wall(runs.size());
  for (auto& r : runs) r();  // warm-up
  for (int k = 0; k < kRuns; ++k)
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const double c0 = thread_cpu_seconds();
      wall[i].push_back(rw::bench::time_once(runs[i]));
      cpu[i].push_back(thread_cpu_seconds() - c0);
    }
  auto median = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  struct M {
    double cpu, wall;
  };
  std::vector<M> m;
  for (std::size_t i = 0; i < runs.size(); ++i) m.push_back({median(cpu[i]), median(wall[i])});
  const M rwg = m[0], keep = m[1], kernel = m[2], check = m[3], eig = m[4], eig_col = m[5],
          eig_fresh = m[6];

  // The results agree.
  double max_diff = 0;
  for (std::int64_t k = 0; k < n * kCols; ++k)
    max_diff = std::max(max_diff, std::abs(result.data<double>()[k] - out.data()[k]));

  const std::string common = fmt::format(" nnz={} cols={} density={:g} load={:.2f}", v.nnz, kCols,
                                         density, load_average());
  report("sparse_dense_dot_rwgraph", n, rwg.cpu,
         fmt::format(" wall_s={:.6g} ratio={:.3f} ratio_fresh={:.3f} max_abs_diff={:g}{}", rwg.wall,
                     rwg.cpu / eig.cpu, rwg.cpu / eig_fresh.cpu, max_diff, common));
  report("sparse_dense_dot_rwgraph_keep", n, keep.cpu,
         fmt::format(" wall_s={:.6g} ratio={:.3f}{}", keep.wall, keep.cpu / eig.cpu, common));
  report("sparse_dense_dot_kernel", n, kernel.cpu,
         fmt::format(" wall_s={:.6g} ratio={:.3f}{}", kernel.wall, kernel.cpu / eig.cpu, common));
  report("sparse_filter", n, check.cpu, fmt::format(" wall_s={:.6g}{}", check.wall, common));
  report("sparse_dense_dot_eigen", n, eig.cpu, fmt::format(" wall_s={:.6g}{}", eig.wall, common));
  report("sparse_dense_dot_eigen_colmajor", n, eig_col.cpu,
         fmt::format(" wall_s={:.6g}{}", eig_col.wall, common));
  report("sparse_dense_dot_eigen_fresh", n, eig_fresh.cpu,
         fmt::format(" wall_s={:.6g}{}", eig_fresh.wall, common));
  return max_diff < 1e-9 ? 0 : 1;
}
