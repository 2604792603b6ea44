#include "fleet/dcgm_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>

#include <httplib.h>
#include <simdjson.h>

#include "base/text.h"
#include "store/clickhouse_store.h"

namespace plasmient::fleet {
namespace {

constexpr std::array<std::string_view, kDcgmCounters> kNames = {
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE",
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",   "DCGM_FI_DEV_GPU_UTIL",   "DCGM_FI_DEV_SM_CLOCK"};

constexpr int kDefaultPrometheusPort = 9090;
// Prometheus refuses a query_range of more than 11,000 points per series.
constexpr std::int64_t kPrometheusMaxPoints = 11000;

// The ratio a sample stands for: GPU_UTIL is a percent, the profiling counters are ratios.
double AsRatio(DcgmCounter c, double value) { return c == DcgmCounter::kGpuUtil ? value / 100 : value; }

std::string LabelKey(const std::vector<std::pair<std::string, std::string>>& labels) {
  std::string key;
  for (const auto& [k, v] : labels) {
    key += k;
    key += '\x1f';
    key += v;
    key += '\x1e';
  }
  return key;
}

// A sample value as Prometheus writes it: "0.5", "NaN", "+Inf".
std::optional<double> SampleValue(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

Status AddSeries(simdjson::dom::object series, DcgmCounter counter,
                 std::map<std::string, DcgmSeries>& by_labels) {
  simdjson::dom::object metric;
  simdjson::dom::array values;
  if (series["metric"].get(metric) || series["values"].get(values))
    return Fail("a series without \"metric\" and \"values\"");
  std::vector<std::pair<std::string, std::string>> labels;
  for (auto field : metric) {
    std::string_view value;
    if (field.value.get(value)) return Fail("label {} is not a string", field.key);
    if (field.key != "__name__") labels.emplace_back(std::string(field.key), std::string(value));
  }
  std::sort(labels.begin(), labels.end());
  std::string key = LabelKey(labels);
  auto [it, fresh] = by_labels.try_emplace(std::move(key));
  if (fresh) it->second.labels = std::move(labels);
  CounterSums& sums = it->second.counters[static_cast<int>(counter)];
  for (auto point : values) {
    simdjson::dom::array pair;
    std::string_view text;
    if (point.get(pair) || pair.size() != 2 || pair.at(1).get(text))
      return Fail("a point that is not [time, \"value\"]");
    auto v = SampleValue(text);
    if (!v) continue;                        // NaN/Inf: no reading at that step
    if (counter == DcgmCounter::kSmClock) {  // MHz; a clock of 0 is no reading
      if (*v > 0) {
        sums.sum += *v;
        ++sums.points;
      } else {
        ++sums.clamped;
      }
      continue;
    }
    double r = AsRatio(counter, *v);
    if (r < 0 || r > 1) ++sums.clamped;
    sums.sum += std::clamp(r, 0.0, 1.0);
    ++sums.points;
  }
  return Ok();
}

// The "error" of a Prometheus error answer, else the start of the body.
std::string ErrorOf(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view type, error;
  if (!parser.parse(body).get(doc) && !doc["error"].get(error)) {
    if (!doc["errorType"].get(type)) return fmt::format("{}: {}", type, error);
    return std::string(error);
  }
  std::string msg = body.substr(0, 200);
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  return msg;
}

}  // namespace

std::string_view DcgmCounterName(DcgmCounter c) { return kNames[static_cast<int>(c)]; }

std::string_view DcgmSeries::Label(std::string_view name) const {
  for (const auto& [k, v] : labels) {
    if (k == name) return v;
  }
  return {};
}

Result<PrometheusGet> PrometheusHttpGet(const std::string& url, int timeout_s) {
  auto hp = store::ParseHttpUrl(url, "--prometheus", kDefaultPrometheusPort);
  if (!hp) return std::unexpected(hp.error());
  auto client = std::make_shared<httplib::Client>(hp->first, hp->second);
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(timeout_s, 0);
  client->set_keep_alive(true);
  return PrometheusGet([client, url](const std::string& path) -> Result<std::string> {
    auto res = client->Get(path.c_str());
    if (!res) return Fail("{}: Prometheus unreachable ({})", url, httplib::to_string(res.error()));
    if (res->status / 100 != 2)
      return Fail("{}: Prometheus answered {}: {}", url, res->status, ErrorOf(res->body));
    return std::move(res->body);
  });
}

Status AddQueryRangeAnswer(std::string_view body, DcgmCounter counter,
                           std::map<std::string, DcgmSeries>& by_labels) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto e = parser.parse(simdjson::padded_string(body)).get(doc))
    return Fail("not JSON ({})", simdjson::error_message(e));
  std::string_view status, type;
  if (doc["status"].get(status)) return Fail("not a Prometheus API answer (no \"status\")");
  if (status != "success") {
    std::string_view error;
    if (doc["error"].get(error)) error = "no error given";
    return Fail("status {}: {}", status, error);
  }
  simdjson::dom::array result;
  if (doc["data"]["resultType"].get(type) || type != "matrix" || doc["data"]["result"].get(result))
    return Fail("not a range answer (data.resultType \"matrix\" with data.result)");
  for (auto series : result) {
    simdjson::dom::object object;
    if (series.get(object)) return Fail("a result that is not an object");
    PLASMIENT_TRY(AddSeries(object, counter, by_labels));
  }
  return Ok();
}

Result<std::int64_t> ParseStepSeconds(std::string_view text) {
  constexpr std::int64_t kMaxStepS = 86400;
  std::int64_t per = 1;
  std::string_view digits = text;
  if (text.ends_with('m')) per = 60;
  if (text.ends_with('h')) per = 3600;
  if (text.ends_with('s') || per > 1) digits.remove_suffix(1);
  auto v = ParseInt(digits);
  if (!v || *v <= 0 || *v > kMaxStepS / per)
    return Fail("--step {}: expected seconds like 60, 60s, 5m or 1h (at most a day)", text);
  return *v * per;
}

Result<DcgmCounters> ReadDcgmCounters(const PrometheusGet& get, const DcgmReadOptions& o) {
  const DcgmWindow& w = o.window;
  if (w.step_s <= 0) return Fail("--step must be positive");
  if (w.Points() < 1)
    return Fail("the window {}..{} is shorter than one step ({} s)", w.start_s, w.end_s, w.step_s);
  const std::int64_t per_request =
      std::clamp<std::int64_t>(o.max_points_per_request, 1, kPrometheusMaxPoints);
  std::map<std::string, DcgmSeries> by_labels;
  for (int c = 0; c < kDcgmCounters; ++c) {
    auto counter = static_cast<DcgmCounter>(c);
    std::string selector = o.match.empty() ? "" : fmt::format("{{{}}}", o.match);
    std::string query = store::UrlEncode(
        fmt::format("avg_over_time({}{}[{}s])", DcgmCounterName(counter), selector, w.step_s));
    // Points are evaluated at the end of each step: start+step, start+2·step, …
    for (std::int64_t first = 1; first <= w.Points(); first += per_request) {
      std::int64_t last = std::min(w.Points(), first + per_request - 1);
      std::string path = fmt::format("/api/v1/query_range?query={}&start={}&end={}&step={}", query,
                                     w.start_s + first * w.step_s, w.start_s + last * w.step_s, w.step_s);
      auto body = get(path);
      if (!body) return std::unexpected(body.error());
      if (auto s = AddQueryRangeAnswer(*body, counter, by_labels); !s)
        return Fail("{}: {} query: {}", o.source, DcgmCounterName(counter), s.error().message);
    }
  }
  DcgmCounters out;
  out.series.reserve(by_labels.size());
  for (auto& [key, series] : by_labels) {
    for (int c = 0; c < kDcgmCounters; ++c) out.found[c] += series.counters[c].points > 0 ? 1 : 0;
    out.series.push_back(std::move(series));
  }
  if (std::all_of(out.found.begin(), out.found.end(), [](std::int64_t n) { return n == 0; })) {
    return Fail("{}: no DCGM series between {} and {} (is dcgm-exporter scraped by this Prometheus?)",
                o.source, w.start_s, w.end_s);
  }
  return out;
}

}  // namespace plasmient::fleet
