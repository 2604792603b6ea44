#include "model/data_quality.h"

#include "base/result.h"

namespace plasmient::model {
namespace {

using enum Severity;

constexpr DqInfo kCatalogue[] = {
#define PLASMIENT_DQ_INFO(id, name, severity, meaning) {Dq::id, name, severity, meaning},
    PLASMIENT_DQ_CATALOGUE(PLASMIENT_DQ_INFO)
#undef PLASMIENT_DQ_INFO
};
static_assert(std::size(kCatalogue) == static_cast<std::size_t>(Dq::kCount));

}  // namespace

const DqInfo& Describe(Dq id) {
  auto i = static_cast<std::size_t>(id);
  PLASMIENT_CHECK(i < std::size(kCatalogue));
  return kCatalogue[i];
}

std::string_view SeverityName(Severity s) {
  switch (s) {
    case kInfo:
      return "info";
    case kWarning:
      return "warning";
    case kError:
      return "error";
  }
  return "unknown";
}

void DataQuality::AddAt(Dq id, std::int64_t byte_offset) {
  auto i = static_cast<std::size_t>(id);
  ++counts_[i];
  if (byte_offset >= 0 && (first_offset_[i] < 0 || byte_offset < first_offset_[i]))
    first_offset_[i] = byte_offset;
}

void DataQuality::Merge(const DataQuality& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
    gpu_ns_[i] += other.gpu_ns_[i];
  }
}

std::vector<std::pair<Dq, std::int64_t>> DataQuality::NonZero() const {
  std::vector<std::pair<Dq, std::int64_t>> out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) out.emplace_back(static_cast<Dq>(i), counts_[i]);
  }
  return out;
}

}  // namespace plasmient::model
