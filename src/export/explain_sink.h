// `plasmient explain`: one column of the vertical trace as text (one layer a line, bottom to top,
// then the sentence that joins them) and as JSON (plasmient.explain/1, docs/json-schema.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/arrivals.h"
#include "verdict/column.h"

namespace plasmient::exporting {

struct Explanation {
  std::string input;   // the trace file of the rank
  std::string device;  // the device the verdict judged by
  verdict::Column column;
  // The communication kernel resident at t, with its match across ranks (multi-rank jobs).
  std::optional<cluster::CollectiveArrivals> collective;
};

// The short form of a kernel name: without a leading "void ", cut at the first '<' or '('
// (template and parameter lists), at most 60 characters.
std::string KernelBaseName(std::string_view name);

// "at t = 6.200 ms (step 5) the device is 99% utilized and 4% of peak, because …, because …":
// each clause comes from one layer of the column (docs/explain.md, "The sentence").
std::string ExplainSentence(const Explanation& e);

// A piece of the sentence: text, or a time that depends on the instant read, so that one set of
// pieces serves every instant of a stretch over which the column's layers do not change (the
// report's cursor, html_vertical.h).
struct SentencePiece {
  enum class Kind : std::uint8_t {
    kText,
    kOffset,  // t from the window start
    kUntil,   // at_ns − t
  } kind = Kind::kText;
  std::string text;
  TimeNs at_ns = 0;
  bool operator==(const SentencePiece&) const = default;
};

// The sentence's clauses up to the cluster's: the device's, the kernel's, and the op and layer's
// or the host's (empty when it has nothing to say).
using SentenceClause = std::vector<SentencePiece>;
std::vector<SentenceClause> SentenceClauses(const verdict::Column& c);
// The cluster clause at t on `rank`'s clock ("because rank 0 waits in allreduce #6 for rank 3, …");
// "" without a matched collective.
std::string ClusterClause(const std::optional<cluster::CollectiveArrivals>& c, std::int64_t rank, TimeNs t);
// The clauses rendered at t and the cluster clause, the non-empty ones joined by ", ", then ".".
std::string RenderSentence(const std::vector<SentenceClause>& clauses, const std::string& cluster, TimeNs t,
                           TimeNs window_start_ns);
// "6.200 ms": milliseconds from whole microseconds, half away from zero (the report's script
// writes the same).
std::string MsText(TimeNs ns);

// `command` (e.g. "plasmient explain job/") with the first fix's instant: " --at 38.567ms --rank 0"
// (verdict::FirstFixInstant); "" when there is none. The verdict box points there.
std::string FirstFixPointer(const verdict::JobVerdict& job, std::string_view command);

std::string RenderExplainText(const Explanation& e);
std::string ExplainToJson(const Explanation& e);

}  // namespace plasmient::exporting
