// Which inputs make one job (docs/cluster.md, "One job"): the same capture given twice counts
// once, and traces that say they belong to different jobs are never merged.
#pragma once

#include <string>
#include <vector>

#include "model/trace.h"
#include "verdict/verdict.h"

namespace plasmient::verdict {

// Remembers each input read so far and recognizes one read again: the same content, or the
// same rank, process and first timestamp (one capture, copied or exported twice).
class InputSet {
 public:
  // The path of the earlier input that `trace` repeats, or "" (and `trace` is remembered).
  // Call before the rank is guessed from the input's position.
  std::string Repeats(const model::Trace& trace);

 private:
  struct Key {
    std::int64_t rank, pid;
    TimeNs first_ns;
    bool operator==(const Key&) const = default;
  };
  std::vector<std::pair<Key, std::string>> seen_;
};

// The evidence that the ranks cannot be one job (different world sizes, run ids or GPU models,
// or captures far apart in time), one line each; empty when nothing says so.
std::vector<std::string> NotOneJob(const std::vector<RankVerdict>& ranks);

}  // namespace plasmient::verdict
