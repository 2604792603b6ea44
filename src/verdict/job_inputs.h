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
  // What identifies one capture: its rank, process and first timestamp.
  struct Key {
    std::int64_t rank, pid;
    TimeNs first_ns;
    bool operator==(const Key&) const = default;
  };
  // `trace`'s key: taken before the rank is guessed from the input's position.
  static Key KeyOf(const model::Trace& trace);

  // The path of the earlier input with this key, or "" (and `path` is remembered under it).
  std::string Repeats(const Key& key, const std::string& path);
  std::string Repeats(const model::Trace& trace) { return Repeats(KeyOf(trace), trace.info.path); }

 private:
  std::vector<std::pair<Key, std::string>> seen_;
};

// The evidence that the ranks cannot be one job (different world sizes, run ids or GPU models,
// or captures far apart in time), one line each; empty when nothing says so.
std::vector<std::string> NotOneJob(const std::vector<RankVerdict>& ranks);

}  // namespace plasmient::verdict
