// "did you mean X?" hints for mistyped subcommands and names: the closest
// candidate by edit distance, if close enough to be a plausible typo.
#ifndef AGT_DENY_SHIM_DID_YOU_MEAN_H_
#define AGT_DENY_SHIM_DID_YOU_MEAN_H_

#include <cstddef>
#include <string_view>

namespace did_you_mean {

inline constexpr std::size_t kMaxWordSize = 64;

// Levenshtein distance; words longer than kMaxWordSize count as far apart.
std::size_t Distance(std::string_view a, std::string_view b);

// The candidate closest to `word` (distance <= 2 and at most half its
// length), or "" when none is. `name_of(i)` gives candidate i.
template <typename NameOf>
std::string_view Closest(std::string_view word, std::size_t count, NameOf name_of) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (std::size_t i = 0; i < count; ++i) {
    std::string_view candidate = name_of(i);
    std::size_t d = Distance(word, candidate);
    if (d < best_distance && d * 2 <= candidate.size()) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace did_you_mean

#endif  // AGT_DENY_SHIM_DID_YOU_MEAN_H_
