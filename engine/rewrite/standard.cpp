// The standard pipeline's database.
#include "engine/rewrite/standard.hpp"

#include "engine/rewrite/constant_folding.hpp"
#include "engine/rewrite/merge.hpp"

namespace rw {

std::shared_ptr<SequenceDB> make_standard_db() {
  auto db = std::make_shared<SequenceDB>("optdb");
  auto merge = [](const char* name) { return std::make_shared<MergeOptimizer>(name); };
  auto at = [](double p) { return EntryOptions{.position = p}; };
  const std::vector<std::string> both{"fast_run", "fast_compile"};
  const std::vector<std::string> both_merge{"fast_run", "fast_compile", "merge"};

  db->add(merge("merge1"), both_merge, at(position::kMerge1));
  db->add(std::make_shared<WalkingDB>("useless"), both, at(position::kUseless));
  db->add(merge("merge1.1"), both_merge, at(position::kMerge11));

  auto folding = std::make_shared<ConstantFolding>();
  auto canonicalize = std::make_shared<EquilibriumDB>("canonicalize");
  canonicalize->add(folding, both);
  canonicalize->add(merge("merge"), both, EntryOptions{.role = EntryRole::Cleanup});
  db->add(canonicalize, both, at(position::kCanonicalize));
  db->add(merge("merge1.2"), both_merge, at(position::kMerge12));

  auto stabilize = std::make_shared<EquilibriumDB>("stabilize");
  stabilize->add(folding, both);
  db->add(stabilize, {"fast_run"}, at(position::kStabilize));

  auto specialize = std::make_shared<EquilibriumDB>("specialize");
  specialize->add(folding, both);
  db->add(specialize, both, at(position::kSpecialize));

  // Folding of dimshuffles here: a rule of the group drops the axes of a
  // broadcast scalar (dot22scalar's alpha), which for a constant would
  // otherwise stay unfolded until the next pipeline. Dimshuffles only: the
  // group's rules read a few Ops, and folding every node would make each
  // graph's pass over it visit every node.
  auto uncanonicalize = std::make_shared<EquilibriumDB>("uncanonicalize");
  uncanonicalize->add(std::make_shared<ConstantFolding>("constant_folding", Tracks{"dimshuffle"}),
                      {"fast_run"});
  db->add(uncanonicalize, {"fast_run"}, at(position::kUncanonicalize));
  db->add(merge("merge2"), {"fast_run", "merge"}, at(position::kMerge2));
  db->add(merge("merge3"), {"fast_run", "merge"}, at(position::kMerge3));
  return db;
}

}  // namespace rw
