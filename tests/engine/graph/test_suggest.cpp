// Edit distance and "did you mean" suggestions.
#include <catch2/catch.hpp>

#include "engine/graph/suggest.hpp"

using namespace rw;

TEST_CASE("edit distance counts a swap of neighbours as one edit", "[graph]") {
  CHECK(edit_distance("log", "log") == 0);
  CHECK(edit_distance("lgo", "log") == 1);
  CHECK(edit_distance("sofplus", "softplus") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("ab", "ba") == 1);
}

TEST_CASE("near names are likely typos, closest first", "[graph]") {
  const std::vector<std::string> names = {"softplus", "log1p_of_add", "mul_by_one", "exp",
                                          "expm1",    "softplus",     "log"};
  CHECK(closest_name("sofplus", names) == "softplus");
  CHECK(closest_name("mul_by_on", names) == "mul_by_one");
  CHECK_FALSE(closest_name("zzz", names));
  // At most a third of the name's length (at least one edit) ...
  CHECK(near_names("lgo", names) == std::vector<std::string>{"log"});
  CHECK(near_names("exm1", names) == std::vector<std::string>{"expm1"});
  CHECK(near_names("ep", names) == std::vector<std::string>{"exp"});
  // ... never the name itself, and each candidate once.
  CHECK(near_names("exp", names).empty());
  CHECK(near_names("softplsu", names) == std::vector<std::string>{"softplus"});
  // Ties keep the candidates' order; closer ones come first.
  CHECK(near_names("expx", std::vector<std::string>{"expm1", "expx1", "exp"}) ==
        std::vector<std::string>{"expx1", "exp"});
  // A one-letter name is not "one edit" from every other one-letter name.
  CHECK(near_names("a", std::vector<std::string>{"b", "ab"}) == std::vector<std::string>{"ab"});
}
