#include "fleet/dcgm_estimate.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/money_text.h"
#include "export/json_writer.h"
#include "fleet/fleet_query.h"
#include "roofline/counter_model.h"
#include "roofline/device_table.h"

namespace plasmient::fleet {
namespace {

constexpr double kSecondsPerHour = 3600;
constexpr std::string_view kNone = "(none)";  // a job or team label the series does not carry
constexpr std::array<DcgmCounter, 5> kShownOrder = {DcgmCounter::kGpuUtil, DcgmCounter::kGrEngineActive,
                                                    DcgmCounter::kSmActive, DcgmCounter::kTensorActive,
                                                    DcgmCounter::kDramActive};

// The device table row of a modelName ("NVIDIA H100 80GB HBM3"), looked up once per name.
class ModelRows {
 public:
  const roofline::DeviceSpec* Find(const std::string& model) {
    auto [it, fresh] = rows_.try_emplace(model, nullptr);
    if (fresh && !model.empty()) {
      auto m = roofline::MatchDevice(roofline::DeviceQuery{.name = model});
      if (m) it->second = m->spec;
    }
    return it->second;
  }

 private:
  std::map<std::string, const roofline::DeviceSpec*> rows_;
};

// One series' share of the estimate.
struct SeriesFigures {
  double seconds = 0;   // tensor-active readings × step
  double achieved = 0;  // tensor active, bounded by SM active (else the engine's)
  std::optional<double> peak_flops_per_s, price;
};

std::optional<double> MeanIfRead(const DcgmSeries& s, DcgmCounter c) {
  const CounterSums& sums = s.At(c);
  if (sums.points == 0) return std::nullopt;
  return sums.Mean();
}

// The counter model the agent's samples and Nsight's GPU metrics go through too
// (roofline/counter_model.h): tensor active × SM clock over the clock the peak assumes, bounded
// by SM active (else the engine's), of the dense 16-bit tensor peak.
SeriesFigures Figure(const DcgmSeries& s, std::int64_t step_s, const roofline::DeviceSpec* device,
                     const std::optional<double>& price) {
  SeriesFigures f;
  f.seconds = static_cast<double>(s.At(DcgmCounter::kTensorActive).points * step_s);
  roofline::CounterReading reading;
  reading.Set(roofline::CounterField::kTensorActive, s.At(DcgmCounter::kTensorActive).Mean());
  auto bound = MeanIfRead(s, DcgmCounter::kSmActive);
  if (!bound) bound = MeanIfRead(s, DcgmCounter::kGrEngineActive);
  if (bound) reading.Set(roofline::CounterField::kSmActive, *bound);
  if (auto dram = MeanIfRead(s, DcgmCounter::kDramActive))
    reading.Set(roofline::CounterField::kDramActive, *dram);
  if (auto clock = MeanIfRead(s, DcgmCounter::kSmClock))
    reading.Set(roofline::CounterField::kSmClockMhz, *clock);
  f.achieved = roofline::EstimateFromCounters(reading, device, roofline::Dtype::kUnknown).achieved;
  if (device != nullptr) {
    f.peak_flops_per_s =
        roofline::PeakFlops(*device, roofline::Dtype::kUnknown, roofline::MathMode::kIeeeFp32);
  }
  f.price = price;
  if (!f.price && device != nullptr) f.price = device->price_per_gpu_hour;
  return f;
}

// "node-1:0", else the UUID, else the label set: what tells one GPU from another.
std::string GpuName(const DcgmSeries& s) {
  std::string_view host = s.Label("Hostname"), gpu = s.Label("gpu"), uuid = s.Label("UUID");
  if (!host.empty() && !gpu.empty()) return fmt::format("{}:{}", host, gpu);
  if (!uuid.empty()) return std::string(uuid);
  std::string all;
  for (const auto& [k, v] : s.labels) all += fmt::format("{}{}={}", all.empty() ? "" : ",", k, v);
  return all;
}

class RowBuilder {
 public:
  void Add(const DcgmSeries& s, const SeriesFigures& f, const std::string& gpu, std::int64_t step_s) {
    gpus_.insert(gpu);
    seconds_ += f.seconds;
    achieved_seconds_ += f.achieved * f.seconds;
    if (f.peak_flops_per_s) flops_seconds_ += f.achieved * *f.peak_flops_per_s * f.seconds;
    if (!f.peak_flops_per_s) unknown_peak_seconds_ += f.seconds;
    if (f.price) {
      double dollars = f.seconds / kSecondsPerHour * *f.price;
      priced_seconds_ += f.seconds;
      dollars_ += dollars;
      wasted_ += dollars * (1 - f.achieved);
    }
    for (int c = 0; c < kDcgmCounters; ++c) {
      counter_sum_[c] += s.counters[c].sum * static_cast<double>(step_s);
      counter_seconds_[c] += static_cast<double>(s.counters[c].points * step_s);
    }
  }

  DcgmRow Finish(std::string name) const {
    DcgmRow r;
    r.name = std::move(name);
    r.gpus = static_cast<std::int64_t>(gpus_.size());
    r.gpu_hours = seconds_ / kSecondsPerHour;
    for (int c = 0; c < kDcgmCounters; ++c) {
      if (counter_seconds_[c] > 0) r.means[c] = counter_sum_[c] / counter_seconds_[c];
    }
    if (seconds_ > 0) {
      r.achieved = achieved_seconds_ / seconds_;
      if (unknown_peak_seconds_ == 0) r.achieved_flops_per_s = flops_seconds_ / seconds_;
    }
    r.priced_gpu_hours = priced_seconds_ / kSecondsPerHour;
    r.dollars = dollars_;
    r.wasted_dollars = wasted_;
    return r;
  }

 private:
  std::set<std::string> gpus_;
  double seconds_ = 0, achieved_seconds_ = 0, flops_seconds_ = 0, unknown_peak_seconds_ = 0;
  double priced_seconds_ = 0, dollars_ = 0, wasted_ = 0;
  std::array<double, kDcgmCounters> counter_sum_{}, counter_seconds_{};
};

std::vector<DcgmRow> Finished(const std::map<std::string, RowBuilder>& builders) {
  std::vector<DcgmRow> rows;
  rows.reserve(builders.size());
  for (const auto& [name, b] : builders) rows.push_back(b.Finish(name));
  std::stable_sort(rows.begin(), rows.end(), [](const DcgmRow& a, const DcgmRow& b) {
    if (a.wasted_dollars != b.wasted_dollars) return a.wasted_dollars > b.wasted_dollars;
    return a.gpu_hours > b.gpu_hours;
  });
  return rows;
}

std::string LabelOr(const DcgmSeries& s, const std::string& label) {
  std::string_view v = s.Label(label);
  return v.empty() ? std::string(kNone) : std::string(v);
}

// Lines for counters no series had, and the fallback each implies.
void NoteMissingCounters(const DcgmCounters& c, std::vector<std::string>& notes) {
  auto missing = [&](DcgmCounter counter) { return c.found[static_cast<int>(counter)] == 0; };
  if (missing(DcgmCounter::kSmActive)) {
    notes.push_back(fmt::format(
        "{} has no series: the tensor reading is bounded by {}", DcgmCounterName(DcgmCounter::kSmActive),
        missing(DcgmCounter::kGrEngineActive) ? std::string("nothing (no engine counter either)")
                                              : std::string(DcgmCounterName(DcgmCounter::kGrEngineActive))));
  }
  if (missing(DcgmCounter::kSmClock)) {
    notes.push_back(fmt::format("{} has no series: the estimate is not normalized by the SM clock",
                                DcgmCounterName(DcgmCounter::kSmClock)));
  }
  for (DcgmCounter counter :
       {DcgmCounter::kGrEngineActive, DcgmCounter::kDramActive, DcgmCounter::kGpuUtil}) {
    if (missing(counter))
      notes.push_back(fmt::format("{} has no series: its column is empty", DcgmCounterName(counter)));
  }
}

}  // namespace

Result<DcgmEstimate> EstimateFromDcgm(const DcgmCounters& counters, const DcgmReadOptions& read,
                                      const DcgmEstimateOptions& options) {
  if (counters.found[static_cast<int>(DcgmCounter::kTensorActive)] == 0) {
    return Fail(
        "{}: {} has no series between {} and {} (dcgm-exporter's profiling counters are off or not in its "
        "counters CSV): the achieved fraction cannot be estimated from utilization alone",
        read.source, DcgmCounterName(DcgmCounter::kTensorActive), read.window.start_s, read.window.end_s);
  }
  if (options.price_per_gpu_hour && !(*options.price_per_gpu_hour >= 0))
    return Fail("--price {} must be zero or more", *options.price_per_gpu_hour);
  DcgmEstimate e;
  e.source = read.source;
  e.window = read.window;
  e.job_label = options.job_label;
  e.team_label = options.team_label;
  e.price_per_gpu_hour = options.price_per_gpu_hour;
  e.bound_by = counters.found[static_cast<int>(DcgmCounter::kSmActive)] > 0
                   ? DcgmCounterName(DcgmCounter::kSmActive)
               : counters.found[static_cast<int>(DcgmCounter::kGrEngineActive)] > 0
                   ? DcgmCounterName(DcgmCounter::kGrEngineActive)
                   : "";
  NoteMissingCounters(counters, e.notes);

  ModelRows models;
  RowBuilder total;
  std::map<std::string, RowBuilder> teams, jobs, gpus;
  std::map<std::string, std::string> gpu_models;
  std::set<std::string> unknown_models;
  double unknown_model_seconds = 0, untensored_seconds = 0;
  std::int64_t untensored = 0, clamped = 0;
  const std::int64_t step = read.window.step_s;
  for (const DcgmSeries& s : counters.series) {
    for (int c = 0; c < kDcgmCounters; ++c) {
      if (c != static_cast<int>(DcgmCounter::kSmClock)) clamped += s.counters[c].clamped;
    }
    if (s.At(DcgmCounter::kTensorActive).points == 0) {
      ++untensored;
      std::int64_t points = 0;
      for (const CounterSums& c : s.counters) points = std::max(points, c.points);
      untensored_seconds += static_cast<double>(points * step);
      continue;
    }
    std::string model(s.Label("modelName"));
    const roofline::DeviceSpec* device = models.Find(model);
    SeriesFigures f = Figure(s, step, device, options.price_per_gpu_hour);
    if (device == nullptr) {
      unknown_models.insert(model.empty() ? "no modelName" : model);
      unknown_model_seconds += f.seconds;
    }
    std::string gpu = GpuName(s);
    gpu_models.try_emplace(gpu, model);
    total.Add(s, f, gpu, step);
    teams[LabelOr(s, options.team_label)].Add(s, f, gpu, step);
    jobs[LabelOr(s, options.job_label)].Add(s, f, gpu, step);
    gpus[gpu].Add(s, f, gpu, step);
  }
  e.total = total.Finish("total");
  e.teams = Finished(teams);
  e.jobs = Finished(jobs);
  e.gpus = Finished(gpus);
  for (DcgmRow& g : e.gpus) {
    g.model = gpu_models[g.name];
    if (const roofline::DeviceSpec* d = models.Find(g.model)) g.device_key = d->key;
  }
  if (untensored > 0) {
    e.notes.push_back(fmt::format(
        "{} series ({:.2f} GPU-hours of other counters) had no {}: left out of the estimate", untensored,
        untensored_seconds / kSecondsPerHour, DcgmCounterName(DcgmCounter::kTensorActive)));
  }
  if (!unknown_models.empty()) {
    std::string names;
    for (const auto& m : unknown_models) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", m);
    e.notes.push_back(fmt::format(
        "{:.2f} GPU-hours on models with no device table row ({}): no peak{}",
        unknown_model_seconds / kSecondsPerHour, names,
        options.price_per_gpu_hour ? "" : " and no price (their dollars are left out; give --price)"));
  }
  if (clamped > 0) e.notes.push_back(fmt::format("{} readings outside 0-100% were clamped", clamped));
  return e;
}

namespace {

std::string Percent(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v * 100) : "-"; }

// GPU-hours: whole hours from 100 up, hundredths from 1, four decimals below (a short window's
// figures are small). Dollars are Money's.
std::string Amount(double v) {
  const double magnitude = std::abs(v);
  return fmt::format("{:.{}f}", v, magnitude >= 100 ? 0 : magnitude >= 1 ? 2 : 4);
}

std::string UtcTime(std::int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Table(const std::vector<DcgmRow>& rows, std::string_view first, std::size_t limit, bool models) {
  store::QueryResult t;
  t.columns = {std::string(first)};
  if (models) t.columns.push_back("model");
  for (const char* c : {"GPUs", "GPU-h", "util", "engine", "SM", "tensor", "DRAM", "est. achieved",
                        "est. TFLOP/s", "$", "est. $ wasted"}) {
    t.columns.emplace_back(c);
  }
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
    const DcgmRow& r = rows[i];
    auto& cells = t.rows.emplace_back();
    cells.push_back(r.name);
    if (models) cells.push_back(r.device_key.empty() ? r.model : r.device_key);
    cells.push_back(fmt::format("{}", r.gpus));
    cells.push_back(Amount(r.gpu_hours));
    for (DcgmCounter c : kShownOrder) cells.push_back(Percent(r.Mean(c)));
    cells.push_back(Percent(r.achieved));
    cells.push_back(r.achieved_flops_per_s ? fmt::format("{:.1f} TF", *r.achieved_flops_per_s / 1e12) : "-");
    cells.push_back(Money(r.dollars));
    cells.push_back(Money(r.wasted_dollars));
  }
  std::string text = FormatTable(t);
  if (rows.size() > limit) text += fmt::format("  … {} more (--limit)\n", rows.size() - limit);
  return text;
}

void RowJson(exporting::JsonWriter& w, const DcgmRow& r) {
  w.BeginObject();
  w.Field("name", r.name);
  if (!r.model.empty() || !r.device_key.empty()) {
    w.Field("model", r.model);
    w.Key("device");
    r.device_key.empty() ? w.Null() : w.String(r.device_key);
  }
  w.Field("gpus", r.gpus);
  w.Field("gpu_hours", r.gpu_hours);
  static constexpr std::array<std::string_view, kDcgmCounters> kKeys = {
      "tensor_active", "sm_active", "dram_active", "gr_engine_active", "utilization", "sm_clock_mhz"};
  for (int c = 0; c < kDcgmCounters; ++c) {
    w.Key(kKeys[c]);
    const std::optional<double>& mean = r.means[c];
    mean ? w.Number(*mean) : w.Null();
  }
  w.Field("achieved_fraction_estimate", r.achieved);
  w.Key("achieved_flops_per_s_estimate");
  r.achieved_flops_per_s ? w.Number(*r.achieved_flops_per_s) : w.Null();
  w.Field("priced_gpu_hours", r.priced_gpu_hours);
  w.Field("dollars", r.dollars);
  w.Field("wasted_dollars_estimate", r.wasted_dollars);
  w.EndObject();
}

}  // namespace

std::string FormatDcgmEstimate(const DcgmEstimate& e, std::size_t limit) {
  std::string out;
  out += fmt::format("plasmient fleet · DCGM counters from {} · {} to {}, step {} s\n", e.source,
                     UtcTime(e.window.start_s),
                     UtcTime(e.window.start_s + e.window.Points() * e.window.step_s), e.window.step_s);
  out += fmt::format(
      "ESTIMATES from device counters, not traces: achieved ≈ tensor-pipe active × SM clock / the peak's "
      "clock{} (docs/counters.md)\n",
      e.bound_by.empty() ? "" : fmt::format(", bounded by {}", e.bound_by));
  out += e.price_per_gpu_hour
             ? fmt::format("price: {} per GPU-hour (--price)\n", Money(*e.price_per_gpu_hour))
             : "price: each model's list price from the device table (`plasmient peaks`)\n";
  const DcgmRow& t = e.total;
  out += fmt::format(
      "total: {} GPUs, {} GPU-hours, utilization {}, estimated achieved {}: {} of {} bought no useful work "
      "(estimate)\n",
      t.gpus, Amount(t.gpu_hours), Percent(t.Mean(DcgmCounter::kGpuUtil)), Percent(t.achieved),
      Money(t.wasted_dollars), Money(t.dollars));
  out += fmt::format("\nby team ({})\n", e.team_label);
  out += Table(e.teams, "team", limit, false);
  out += fmt::format("\nby job ({})\n", e.job_label);
  out += Table(e.jobs, "job", limit, false);
  out += "\nby GPU (Hostname:gpu)\n";
  out += Table(e.gpus, "gpu", limit, true);
  if (!e.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& n : e.notes) out += fmt::format("  - {}\n", n);
  }
  return out;
}

std::string DcgmEstimateJson(const DcgmEstimate& e) {
  std::string out;
  exporting::JsonWriter w(out);
  w.BeginObject();
  w.Field("schema", "plasmient.fleet_dcgm/1");
  w.Field("estimate", "from device counters (dcgm-exporter via Prometheus), not traces");
  w.Field("source", e.source);
  w.Key("window").BeginObject();
  w.Field("start_s", e.window.start_s);
  w.Field("end_s", e.window.start_s + e.window.Points() * e.window.step_s);
  w.Field("step_s", e.window.step_s);
  w.EndObject();
  w.Field("job_label", e.job_label);
  w.Field("team_label", e.team_label);
  w.Key("bounded_by");
  e.bound_by.empty() ? w.Null() : w.String(e.bound_by);
  w.Key("price_per_gpu_hour");
  e.price_per_gpu_hour ? w.Number(*e.price_per_gpu_hour) : w.Null();
  w.Key("total");
  RowJson(w, e.total);
  for (auto [key, rows] :
       {std::pair{"teams", &e.teams}, std::pair{"jobs", &e.jobs}, std::pair{"gpus", &e.gpus}}) {
    w.Key(key).BeginArray();
    for (const DcgmRow& r : *rows) RowJson(w, r);
    w.EndArray();
  }
  w.Key("notes").BeginArray();
  for (const auto& n : e.notes) w.String(n);
  w.EndArray();
  w.EndObject();
  out += '\n';
  return out;
}

}  // namespace plasmient::fleet
