// Tensor::to_string against NumPy's str() of the same arrays.
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/tensor.hpp"

using namespace rw;
using V = std::vector<std::int64_t>;

namespace {
Tensor iota(std::int64_t n, V shape) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return Tensor::from_vector(v, shape);
}
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("floats share one positional format, aligned on the point", "[runtime]") {
  REQUIRE(Tensor::from({{1.0, 2.5}, {3.0, 4.0}}).to_string() == "[[1.  2.5]\n [3.  4. ]]");
  REQUIRE(Tensor::from({-1.0, 2.0}).to_string() == "[-1.  2.]");
  REQUIRE(Tensor::from({1.0 / 3, 2.0 / 3}).to_string() == "[0.33333333 0.66666667]");
  REQUIRE(Tensor::from({0.1f, 0.2f, 1.0f / 3}).to_string() == "[0.1        0.2        0.33333334]");
  REQUIRE(Tensor::from({-0.0, 0.0}).to_string() == "[-0.  0.]");
  REQUIRE(Tensor::from({1.0, kNan}).to_string() == "[ 1. nan]");
  REQUIRE(Tensor::from({-kInf, 2.0}).to_string() == "[-inf   2.]");
  REQUIRE(Tensor::from({kNan, kInf}).to_string() == "[nan inf]");
}

TEST_CASE("small or wide-ranging floats switch to scientific notation", "[runtime]") {
  REQUIRE(Tensor::from({1.5e-5, 1.0, 123456.0}).to_string() ==
          "[1.50000e-05 1.00000e+00 1.23456e+05]");
  REQUIRE(Tensor::from({-1e-5, 1.0}).to_string() == "[-1.e-05  1.e+00]");
  REQUIRE(Tensor::from({1e20, -2.0}).to_string() == "[ 1.e+20 -2.e+00]");
  REQUIRE(Tensor::from({1e-100, 1.0}).to_string() == "[1.e-100 1.e+000]");
  REQUIRE(Tensor::from({1.0, 999.0}).to_string() == "[  1. 999.]");
  REQUIRE(Tensor::from({1.0, 1001.0}).to_string() == "[1.000e+00 1.001e+03]");
}

TEST_CASE("integers, bools and 0-d tensors", "[runtime]") {
  REQUIRE(Tensor::from({1, 2, 3}).to_string() == "[1 2 3]");
  REQUIRE(Tensor::from({-10, 5}).to_string() == "[-10   5]");
  REQUIRE(Tensor::from({true, false}).to_string() == "[ True False]");
  REQUIRE(Tensor::from({true, true}).to_string() == "[ True  True]");
  REQUIRE(Tensor::scalar(1.0).to_string() == "1.0");
  REQUIRE(Tensor::scalar(1e-5).to_string() == "1e-05");
  REQUIRE(Tensor::scalar(1e16).to_string() == "1e+16");
  REQUIRE(Tensor::scalar(0.1f).to_string() == "0.1");
  REQUIRE(Tensor::scalar(true).to_string() == "True");
  REQUIRE(Tensor::scalar(std::int64_t{-7}).to_string() == "-7");
  REQUIRE(Tensor::zeros({0, 3}).to_string() == "[]");
  REQUIRE(Tensor().to_string() == "<null tensor>");
}

TEST_CASE("long rows wrap at 75 columns", "[runtime]") {
  REQUIRE(Tensor::arange(0.0, 30.0).to_string() ==
          "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n"
          " 18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]");
  REQUIRE(iota(40, {2, 20}).to_string() ==
          "[[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19]\n"
          " [20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39]]");
  REQUIRE(iota(8, {2, 2, 2}).to_string() == "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
}

TEST_CASE("more than 1000 elements are summarised", "[runtime]") {
  REQUIRE(iota(1000, {1000}).to_string().find("...") == std::string::npos);
  REQUIRE(iota(2000, {2000}).to_string() == "[   0    1    2 ... 1997 1998 1999]");
  REQUIRE(iota(2000, {2, 1000}).to_string() ==
          "[[   0    1    2 ...  997  998  999]\n"
          " [1000 1001 1002 ... 1997 1998 1999]]");
  REQUIRE(iota(2000, {100, 20}).to_string() ==
          "[[   0    1    2 ...   17   18   19]\n"
          " [  20   21   22 ...   37   38   39]\n"
          " [  40   41   42 ...   57   58   59]\n"
          " ...\n"
          " [1940 1941 1942 ... 1957 1958 1959]\n"
          " [1960 1961 1962 ... 1977 1978 1979]\n"
          " [1980 1981 1982 ... 1997 1998 1999]]");
  // Widths come from the printed elements only: the hidden middle is wider.
  Tensor t = Tensor::zeros({1001});
  t.slice(0, 500, 501).assign(Tensor::from({123456.0}));
  REQUIRE(t.to_string() == "[0. 0. 0. ... 0. 0. 0.]");
}
