// The collector's one "did you mean X?" helper (ninja's SpellcheckString):
// options on the command line and keys in the configuration both use it.
#ifndef AGT_COLLECTOR_DID_YOU_MEAN_H_
#define AGT_COLLECTOR_DID_YOU_MEAN_H_

#include <cstddef>
#include <string_view>
#include <vector>

namespace did_you_mean {

// Levenshtein distance: insertions, deletions and substitutions.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest to `word`: within an edit distance of 2, or one
// that `word` (3 or more bytes) is a cut-short prefix of. Empty when none.
std::string_view Closest(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace did_you_mean

#endif  // AGT_COLLECTOR_DID_YOU_MEAN_H_
