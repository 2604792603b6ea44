#include "serve/metrics.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/bounded_name.h"
#include "base/time_units.h"

namespace plasmient::serve {
namespace {

void Value(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
  } else {
    out += fmt::format("{}", v);
  }
}

void Header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size();) {
    std::size_t n = Utf8SequenceLength(value, i);
    char c = value[i];
    if (n == 0) {
      out += kReplacement;
      n = 1;
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else if (n == 1 && (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)) {
      out += kReplacement;  // other control characters: valid, but no scraper needs them
    } else {
      out.append(value, i, n);
    }
    i += n;
  }
  return out;
}

namespace {

// The labels of a rank's series, as dcgm-exporter names a GPU's: gpu (the index, left out when the
// trace gives none), modelName, Hostname; then Plasmient's job and rank.
std::string RankSeriesLabels(const std::string& host, std::int32_t index, const std::string& model,
                             const std::string& job, std::int64_t rank) {
  std::string gpu = index >= 0 ? fmt::format("gpu=\"{}\",", index) : std::string();
  return fmt::format("Hostname=\"{}\",{}modelName=\"{}\",plasmient_job=\"{}\",rank=\"{}\"",
                     EscapeLabelValue(host), gpu, EscapeLabelValue(model), EscapeLabelValue(job), rank);
}

// A job label's name in plasmient_job_info: valid ([a-zA-Z_][a-zA-Z0-9_]*), and one of the
// series' own names or Prometheus's (job, instance, __*) prefixed with "label_".
std::string InfoLabelName(std::string_view key) {
  std::string out;
  for (char c : key) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) || out.starts_with("__") ||
      out == "job" || out == "instance" || out == "plasmient_job" || out == "Hostname" || out == "gpu" ||
      out == "modelName" || out == "rank") {
    out.insert(0, "label_");
  }
  return out;
}

}  // namespace

std::string NameLabel(std::string_view name) {
  // "void at::native::elementwise_kernel<128, 4, ...>(int, ...)" -> "at::native::elementwise_kernel"
  std::string_view short_form = name;
  if (short_form.starts_with("void ")) short_form.remove_prefix(5);
  std::size_t cut = short_form.find_first_of("<(");
  if (cut != std::string_view::npos && cut > 0) short_form = short_form.substr(0, cut);
  return BoundNameTo(name, kLabelBytes, short_form);
}

std::vector<RankSample> SampleJob(const verdict::JobVerdict& job) {
  std::vector<RankSample> out;
  for (const auto& rank : job.ranks) {
    bool measured = rank.no_gpu_reason.empty();
    if (!measured && !rank.device_tier.any()) continue;
    RankSample& s = out.emplace_back();
    s.rank = rank.rank;
    s.gpu = rank.device.name;
    s.gpu_index = rank.device.index;
    s.sm_active = rank.device_tier.Mean(verdict::DeviceMetric::kSmActive);
    s.tensor_active = rank.device_tier.Mean(verdict::DeviceMetric::kTensorActive);
    s.dram_active = rank.device_tier.Mean(verdict::DeviceMetric::kDramActive);
    RankCounterFigures counters = CounterFiguresOf(rank);
    s.counter_estimate = counters.uncalibrated;
    s.device_key = std::move(counters.device);
    if (!measured) {  // device-tier samples only: no verdict
      s.kind = SampleKind::kDeviceTier;
      continue;
    }
    s.window_start_ns = rank.run.start_ns;
    s.utilization = rank.run.utilization();
    s.achieved = rank.run.achieved();
    for (std::size_t i = 0; i < verdict::kLossCount; ++i)
      s.loss[i] = rank.run.loss(static_cast<verdict::Loss>(i));
    s.gpu_s = rank.run.wall_s;
    s.wasted_s = rank.run.lost_s();
    for (const auto& step : rank.steps) {
      double d = step.figures.wall_s;
      auto b = std::lower_bound(kStepBucketsS.begin(), kStepBucketsS.end(), d);
      if (b != kStepBucketsS.end()) ++s.buckets[static_cast<std::size_t>(b - kStepBucketsS.begin())];
      ++s.steps;
      s.steps_sum_s += d;
    }
  }
  return out;
}

JobTops SampleTops(const verdict::JobVerdict& job) {
  JobTops out;
  // top_kernels come largest lost time first; the types by GPU time.
  for (const auto& k : job.top_kernels) {
    if (out.kernels.size() == kTopSeries) break;
    out.kernels.push_back({k.name, std::string(verdict::LossKey(k.loss)), k.time_s, k.lost_s});
  }
  for (const auto& t : job.layers.types) {
    if (out.layer_types.size() == kTopSeries) break;
    out.layer_types.push_back(
        {t.type, std::string(verdict::LossKey(t.main_loss())), t.gpu_time_s, t.lost_s()});
  }
  return out;
}

namespace {

// A text cell: backslash, tab and newline escaped.
void AppendCell(std::string& out, std::string_view text) {
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

std::string ReadCell(std::string_view cell) {
  std::string out;
  for (; !cell.empty(); cell.remove_prefix(1)) {
    if (cell[0] == '\\' && cell.size() > 1) {
      cell.remove_prefix(1);
      out += cell[0] == 't' ? '\t' : cell[0] == 'n' ? '\n' : cell[0];
    } else {
      out += cell[0];
    }
  }
  return out;
}

}  // namespace

// One line per rank: the rank, the GPU name, then the numbers; then one per top kernel ("k") and
// module type ("l"): the name, the loss, the seconds. Tab-separated cells, each line ending in "end".
std::string SerializeSamples(const std::vector<RankSample>& samples, const JobTops& tops) {
  std::string out;
  for (const auto& s : samples) {
    out += fmt::format("{}\t", s.rank);
    AppendCell(out, s.gpu);
    out += fmt::format("\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t", s.gpu_index,
                       s.utilization, s.achieved, fmt::join(s.loss, "\t"), s.gpu_s, s.wasted_s,
                       fmt::join(s.buckets, "\t"), s.steps, s.steps_sum_s, static_cast<int>(s.kind),
                       s.sm_active, s.tensor_active, s.dram_active, s.window_start_ns, s.counter_estimate);
    AppendCell(out, s.device_key);
    out += "\tend\n";
  }
  for (auto [tag, rows] : {std::pair{'k', &tops.kernels}, std::pair{'l', &tops.layer_types}}) {
    for (const auto& t : *rows) {
      out += fmt::format("{}\t", tag);
      AppendCell(out, t.name);
      out += '\t';
      AppendCell(out, t.loss);
      out += fmt::format("\t{}\t{}\tend\n", t.gpu_s, t.lost_s);
    }
  }
  return out;
}

Result<std::vector<RankSample>> ParseSamples(std::string_view text, JobTops* tops) {
  std::vector<RankSample> out;
  while (!text.empty()) {
    std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos) return Fail("metrics samples: unterminated line");
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    std::vector<std::string_view> cells;
    for (std::size_t at = 0;;) {
      std::size_t tab = line.find('\t', at);
      cells.push_back(line.substr(at, tab == std::string_view::npos ? std::string_view::npos : tab - at));
      if (tab == std::string_view::npos) break;
      at = tab + 1;
    }
    constexpr std::size_t kCells = 3 + 2 + verdict::kLossCount + 2 + kStepBucketsS.size() + 2 + 5 + 2 + 1;
    constexpr std::size_t kTopCells = 1 + 2 + 2 + 1;
    bool top = cells.front() == "k" || cells.front() == "l";
    if (cells.size() != (top ? kTopCells : kCells) || cells.back() != "end" || (top && tops == nullptr)) {
      return Fail("metrics samples: bad line");
    }
    std::size_t k = 0;
    bool ok = true;
    auto num = [&](auto& v) {
      std::string_view c = cells[k++];
      auto r = std::from_chars(c.data(), c.data() + c.size(), v);
      ok = ok && r.ec == std::errc() && r.ptr == c.data() + c.size();
    };
    if (top) {
      TopSample& t = (cells[k++] == "k" ? tops->kernels : tops->layer_types).emplace_back();
      t.name = ReadCell(cells[k++]);
      t.loss = ReadCell(cells[k++]);
      num(t.gpu_s);
      num(t.lost_s);
      if (!ok) return Fail("metrics samples: bad number");
      continue;
    }
    RankSample& s = out.emplace_back();
    num(s.rank);
    s.gpu = ReadCell(cells[k++]);
    num(s.gpu_index);
    num(s.utilization);
    num(s.achieved);
    for (auto& l : s.loss) num(l);
    num(s.gpu_s);
    num(s.wasted_s);
    for (auto& b : s.buckets) num(b);
    num(s.steps);
    num(s.steps_sum_s);
    int kind = -1;
    num(kind);
    if (kind < 0 || kind > static_cast<int>(SampleKind::kDeviceTier)) ok = false;
    s.kind = static_cast<SampleKind>(kind);
    num(s.sm_active);
    num(s.tensor_active);
    num(s.dram_active);
    num(s.window_start_ns);
    num(s.counter_estimate);
    s.device_key = ReadCell(cells[k++]);
    if (!ok) return Fail("metrics samples: bad number");
  }
  return out;
}

MetricsRegistry::MetricsRegistry(std::size_t max_jobs, double counter_hold_s)
    : max_jobs_(max_jobs),
      hold_ns_(static_cast<std::int64_t>(std::max(0.0, counter_hold_s) * 1e9)),
      now_ns_([] {
        return static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count());
      }) {}

void MetricsRegistry::SetClock(std::function<std::int64_t()> now_ns) {
  std::lock_guard lock(mu_);
  now_ns_ = std::move(now_ns);
  dirty_ = true;
}

bool MetricsRegistry::RecordJob(const std::vector<RankSample>& samples, const store::JobContext& context,
                                const JobTops& tops) {
  std::lock_guard lock(mu_);
  if (!context.job_key.empty()) {
    if (std::find(counted_keys_.begin(), counted_keys_.end(), context.job_key) != counted_keys_.end())
      return false;
    counted_keys_.push_back(context.job_key);
    if (counted_keys_.size() > kCountedKeys) counted_keys_.pop_front();
  }
  dirty_ = true;
  const std::int64_t release_ns = now_ns_() + hold_ns_;
  info_[context.job_id] = {context.host, context.labels};
  auto it = std::find(job_order_.begin(), job_order_.end(), context.job_id);
  if (it != job_order_.end()) job_order_.erase(it);
  job_order_.push_back(context.job_id);
  while (job_order_.size() > max_jobs_) {
    const std::string& old = job_order_.front();
    auto lo = series_.lower_bound(Key{old, INT64_MIN});
    while (lo != series_.end() && lo->first.first == old) lo = series_.erase(lo);
    auto w = windowed_.lower_bound(Key{old, INT64_MIN});
    while (w != windowed_.end() && w->first.first == old) w = windowed_.erase(w);
    counters_.Forget(old);
    tops_.erase(old);
    info_.erase(old);
    job_order_.pop_front();
  }
  if (std::any_of(samples.begin(), samples.end(),
                  [](const RankSample& s) { return s.kind != SampleKind::kDeviceTier; })) {
    tops_[context.job_id] = {context.host, tops};
  }
  for (const auto& sample : samples) {
    if (sample.kind != SampleKind::kTrace || sample.device_sampled())
      RecordWindow(sample, context, release_ns);
    if (sample.kind == SampleKind::kDeviceTier) continue;  // no verdict: only the device gauges
    auto [at, born] = series_.try_emplace(Key{context.job_id, sample.rank});
    RankSeries& s = at->second;
    if (born) s.release_ns = release_ns;  // shows 0 until then: the first analysis is an increase
    s.host = context.host;
    s.gpu = sample.gpu;
    s.gpu_index = sample.gpu_index;
    s.utilization = sample.utilization;
    s.achieved = sample.achieved;
    s.loss = sample.loss;
    s.gpu_s += sample.gpu_s;
    s.wasted_s += sample.wasted_s;
    for (std::size_t i = 0; i < s.buckets.size(); ++i) s.buckets[i] += sample.buckets[i];
    s.steps += sample.steps;
    s.steps_sum_s += sample.steps_sum_s;
  }
  return true;
}

namespace {

constexpr std::string_view kStateHead = "plasmient-metrics-state\t1";

// Cells of a state line: each escaped as AppendCell does, tab-separated.
struct StateLine {
  std::string text;
  template <typename T>
  StateLine& operator<<(const T& v) {
    if (!text.empty()) text += '\t';
    if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      AppendCell(text, v);
    } else {
      text += fmt::format("{}", v);
    }
    return *this;
  }
};

// The cells of one state line, read back in order; ok() false after a missing or bad cell.
class StateCells {
 public:
  explicit StateCells(std::string_view line) {
    for (std::size_t at = 0;;) {
      std::size_t tab = line.find('\t', at);
      cells_.push_back(line.substr(at, tab == std::string_view::npos ? std::string_view::npos : tab - at));
      if (tab == std::string_view::npos) break;
      at = tab + 1;
    }
  }
  std::size_t left() const { return cells_.size() - next_; }
  std::string Text() {
    return next_ < cells_.size() ? ReadCell(cells_[next_++]) : (ok_ = false, std::string());
  }
  template <typename T>
  void Num(T& v) {
    if (next_ >= cells_.size()) {
      ok_ = false;
      return;
    }
    std::string_view c = cells_[next_++];
    auto r = std::from_chars(c.data(), c.data() + c.size(), v);
    ok_ = ok_ && r.ec == std::errc() && r.ptr == c.data() + c.size();
  }
  bool ok() const { return ok_ && next_ == cells_.size(); }

 private:
  std::vector<std::string_view> cells_;
  std::size_t next_ = 0;
  bool ok_ = true;
};

}  // namespace

std::string MetricsRegistry::SaveState() const {
  std::lock_guard lock(mu_);
  std::string out = std::string(kStateHead) + "\n";
  for (const auto& key : counted_keys_) out += (StateLine{} << "key" << key).text + "\n";
  for (const auto& job : job_order_) {
    auto info = info_.find(job);
    StateLine line;
    line << "job" << job << (info == info_.end() ? std::string() : info->second.host);
    if (info != info_.end()) {
      for (const auto& [k, v] : info->second.labels) line << k << v;
    }
    out += line.text + "\n";
  }
  for (const auto& [k, r] : series_) {
    StateLine line;
    line << "rank" << k.first << k.second << r.host << r.gpu << r.gpu_index << r.release_ns << r.utilization
         << r.achieved;
    for (double l : r.loss) line << l;
    line << r.gpu_s << r.wasted_s;
    for (auto b : r.buckets) line << b;
    line << r.steps << r.steps_sum_s;
    out += line.text + "\n";
  }
  for (const auto& [k, w] : windowed_) {
    StateLine line;
    line << "window" << k.first << k.second << w.host << w.gpu << w.gpu_index << w.release_ns << w.windows
         << w.lifetime_useful_s << w.lifetime_gpu_s << w.sm_active << w.tensor_active << w.dram_active;
    out += line.text + "\n";
  }
  out += "end\n";
  return out;
}

Status MetricsRegistry::LoadState(std::string_view text) {
  std::deque<std::string> keys, order;
  std::map<std::string, JobInfo> info;
  std::map<Key, RankSeries> series;
  std::map<Key, WindowSeries> windowed;
  if (!text.starts_with(std::string(kStateHead) + "\n")) return Fail("not a metrics state (version 1)");
  text.remove_prefix(kStateHead.size() + 1);
  bool ended = false;
  for (std::size_t n = 2; !text.empty(); ++n) {
    std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos || ended) return Fail("line {}: cut short", n);
    StateCells c(text.substr(0, eol));
    text.remove_prefix(eol + 1);
    std::string tag = c.Text();
    if (tag == "end") {
      ended = true;
    } else if (tag == "key") {
      keys.push_back(c.Text());
    } else if (tag == "job") {
      std::string job = c.Text();
      JobInfo& j = info[job];
      j.host = c.Text();
      while (c.left() >= 2) {
        std::string k = c.Text();
        j.labels.emplace_back(k, c.Text());
      }
      order.push_back(std::move(job));
    } else if (tag == "rank" || tag == "window") {
      Key k;
      k.first = c.Text();
      c.Num(k.second);
      std::string host = c.Text(), gpu = c.Text();
      std::int32_t index = -1;
      std::int64_t release = 0;
      c.Num(index);
      c.Num(release);
      if (tag == "rank") {
        RankSeries& r = series[k];
        r.host = std::move(host);
        r.gpu = std::move(gpu);
        r.gpu_index = index;
        r.release_ns = release;
        c.Num(r.utilization);
        c.Num(r.achieved);
        for (double& l : r.loss) c.Num(l);
        c.Num(r.gpu_s);
        c.Num(r.wasted_s);
        for (auto& b : r.buckets) c.Num(b);
        c.Num(r.steps);
        c.Num(r.steps_sum_s);
      } else {
        WindowSeries& w = windowed[k];
        w.host = std::move(host);
        w.gpu = std::move(gpu);
        w.gpu_index = index;
        w.release_ns = release;
        c.Num(w.windows);
        c.Num(w.lifetime_useful_s);
        c.Num(w.lifetime_gpu_s);
        c.Num(w.sm_active);
        c.Num(w.tensor_active);
        c.Num(w.dram_active);
      }
    } else {
      return Fail("line {}: unknown record", n);
    }
    if (!c.ok()) return Fail("line {}: bad cells", n);
  }
  if (!ended) return Fail("cut short (no end line)");
  std::lock_guard lock(mu_);
  counted_keys_ = std::move(keys);
  job_order_ = std::move(order);
  info_ = std::move(info);
  series_ = std::move(series);
  windowed_ = std::move(windowed);
  tops_.clear();
  dirty_ = true;
  return Ok();
}

double MetricsRegistry::WindowSeries::Rolling() const {
  double useful = 0, gpu = 0;
  for (const auto& w : recent) {
    useful += w.achieved * w.gpu_s;
    gpu += w.gpu_s;
  }
  return gpu > 0 ? useful / gpu : -1;
}

void MetricsRegistry::RecordWindow(const RankSample& sample, const store::JobContext& context,
                                   std::int64_t release_ns) {
  auto [at, born] = windowed_.try_emplace(Key{context.job_id, sample.rank});
  WindowSeries& w = at->second;
  if (born) w.release_ns = release_ns;
  w.host = context.host;
  if (!sample.gpu.empty()) w.gpu = sample.gpu;
  if (sample.gpu_index >= 0) w.gpu_index = sample.gpu_index;
  w.sm_active = sample.sm_active;
  w.tensor_active = sample.tensor_active;
  w.dram_active = sample.dram_active;
  if (sample.kind != SampleKind::kDeviceTier) {  // measured: a kernel window or a whole trace
    // The window's exact figure and the counters over the same seconds: one calibration pair.
    if (!sample.device_key.empty()) w.device_key = sample.device_key;
    counters_.Measured(context.job_id, w.device_key, sample.achieved, sample.counter_estimate, sample.gpu_s);
    w.estimated = w.uncalibrated = w.band = -1;  // a measured figure replaces the estimate
    if (sample.kind != SampleKind::kWindow) return;
    w.recent.push_back({sample.achieved, sample.gpu_s, sample.window_start_ns});
    if (w.recent.size() > kRollingWindows) w.recent.pop_front();
    w.lifetime_useful_s += sample.achieved * sample.gpu_s;
    w.lifetime_gpu_s += sample.gpu_s;
    ++w.windows;
    return;
  }
  // Between windows: calibrated by the windows of the same job on the same device model (the
  // samples file's own device when no window named one).
  w.estimated = w.uncalibrated = w.band = -1;
  if (sample.counter_estimate < 0) return;
  const std::string& device = w.device_key.empty() ? sample.device_key : w.device_key;
  roofline::CalibratedEstimate e = counters_.Between(context.job_id, device, sample.counter_estimate);
  w.estimated = e.achieved;
  w.uncalibrated = e.uncalibrated;
  w.band = e.band;
  w.calibration_pairs = e.pairs;
  w.calibrated = e.calibrated;
}

void MetricsRegistry::SetLive(const std::string& host, std::vector<LiveSample> samples) {
  std::lock_guard lock(mu_);
  dirty_ = true;
  live_host_ = host;
  live_ = std::move(samples);
}

std::size_t MetricsRegistry::jobs() const {
  std::lock_guard lock(mu_);
  return job_order_.size();
}

void MetricsRegistry::SetCluster(const std::string& job, std::int64_t ranks,
                                 const std::vector<verdict::Straggler>& stragglers) {
  std::lock_guard lock(mu_);
  dirty_ = true;
  auto it = std::find(cluster_order_.begin(), cluster_order_.end(), job);
  if (it != cluster_order_.end()) cluster_order_.erase(it);
  cluster_order_.push_back(job);
  cluster_[job] = {ranks, stragglers};
  while (cluster_order_.size() > max_jobs_) {
    cluster_.erase(cluster_order_.front());
    cluster_order_.pop_front();
  }
}

std::shared_ptr<const SharedBody> MetricsRegistry::Series() const {
  std::lock_guard lock(mu_);
  std::int64_t now = now_ns_();
  if (!cache_ || dirty_ || now >= next_release_ns_) {
    std::string text;
    next_release_ns_ = INT64_MAX;
    RenderSeries(text, now);
    cache_ = std::make_shared<const SharedBody>(std::move(text));
    dirty_ = false;
  }
  return cache_;
}

std::string MetricsRegistry::RenderSelf(const std::vector<SelfMetric>& self) {
  std::string out;
  out.reserve(256 * (self.size() + 1));
  for (const auto& m : self) {
    if (!m.label.empty() && m.series.empty()) continue;
    Header(out, m.name, m.type, m.help);
    if (m.label.empty()) {
      out += m.name;
      out += ' ';
      Value(out, m.value);
      out += '\n';
    }
    for (const auto& [label_value, value] : m.series) {
      out += fmt::format("{}{{{}=\"{}\"}} ", m.name, m.label, EscapeLabelValue(label_value));
      Value(out, value);
      out += '\n';
    }
  }
  return out;
}

std::string MetricsRegistry::Render(const std::vector<SelfMetric>& self) const {
  std::string out(Series()->text());
  out += RenderSelf(self);
  return out;
}

void MetricsRegistry::RenderSeries(std::string& out, std::int64_t now) const {
  out.reserve(256 + series_.size() * 2048);
  std::vector<std::pair<const Key*, const RankSeries*>> rows;
  rows.reserve(series_.size());
  for (const auto& [k, s] : series_) rows.emplace_back(&k, &s);
  // A series born at `release_ns` shows its counters as 0 before then.
  auto held = [&](std::int64_t release_ns) {
    if (now >= release_ns) return false;
    next_release_ns_ = std::min(next_release_ns_, release_ns);
    return true;
  };
  auto labels = [](const Key& k, const RankSeries& s) {
    return RankSeriesLabels(s.host, s.gpu_index, s.gpu, k.first, k.second);
  };
  Header(out, "plasmient_job_info", "gauge",
         "1 per job: its host and labels (--label, the marker's team=, user=, ...) to join on by "
         "plasmient_job.");
  for (const auto& job : job_order_) {
    auto info = info_.find(job);
    if (info == info_.end()) continue;
    out += fmt::format("plasmient_job_info{{Hostname=\"{}\",plasmient_job=\"{}\"",
                       EscapeLabelValue(info->second.host), EscapeLabelValue(job));
    std::vector<std::pair<std::string, std::string>> extra;
    for (const auto& [key, value] : info->second.labels) extra.emplace_back(InfoLabelName(key), value);
    std::sort(extra.begin(), extra.end());
    for (std::size_t i = 0; i < extra.size(); ++i) {
      if (i > 0 && extra[i].first == extra[i - 1].first) continue;  // one value per name
      out += fmt::format(",{}=\"{}\"", extra[i].first, EscapeLabelValue(extra[i].second));
    }
    out += "} 1\n";
  }
  auto gauge = [&](std::string_view name, std::string_view type, std::string_view help, auto get) {
    Header(out, name, type, help);
    for (const auto& [k, s] : rows) {
      out += fmt::format("{}{{{}}} ", name, labels(*k, *s));
      Value(out, get(*s));
      out += '\n';
    }
  };
  gauge("plasmient_gpu_utilization_ratio", "gauge",
        "Share of the trace window with a kernel resident (what nvidia-smi reports).",
        [](const RankSeries& s) { return s.utilization; });
  // A duty-cycled rank's kernel windows are series of their own (window="kernel" and the window's
  // start), so no window's figure overwrites another's; the plain series is for whole traces.
  auto has_windows = [this](const Key& k) {
    auto w = windowed_.find(k);
    return w != windowed_.end() && w->second.windows > 0;
  };
  Header(out, "plasmient_achieved_fraction_of_peak_ratio", "gauge",
         "Useful FLOP/s over the chip's peak for the dominant dtype, over the trace window; duty-cycled "
         "jobs by kernel window (window=\"kernel\", window_start: Unix seconds; the last windows kept), and "
         "rolling: the last windows, lifetime: every window, between: estimated from the device tier since "
         "the last window.");
  for (const auto& [k, s] : rows) {
    if (has_windows(*k)) continue;
    out += fmt::format("plasmient_achieved_fraction_of_peak_ratio{{{}}} ", labels(*k, *s));
    Value(out, s->achieved);
    out += '\n';
  }
  auto window_labels = [](const Key& k, const WindowSeries& w) {
    return RankSeriesLabels(w.host, w.gpu_index, w.gpu, k.first, k.second);
  };
  for (const auto& [k, w] : windowed_) {
    auto line = [&](std::string_view window, std::string_view figure, double v) {
      if (v < 0) return;
      out += fmt::format("plasmient_achieved_fraction_of_peak_ratio{{{},window=\"{}\",figure=\"{}\"}} ",
                         window_labels(k, w), window, figure);
      Value(out, v);
      out += '\n';
    };
    for (auto r = w.recent.begin(); r != w.recent.end(); ++r) {
      // Two windows with one start (a window read again under another name): the later one only.
      if (std::any_of(r + 1, w.recent.end(),
                      [&](const auto& later) { return later.start_ns == r->start_ns; }))
        continue;
      out += fmt::format(
          "plasmient_achieved_fraction_of_peak_ratio{{{},window=\"kernel\",window_start=\"{}.{:03}\","
          "figure=\"measured\"}} ",
          window_labels(k, w), r->start_ns / kNsPerS, r->start_ns / kNsPerMs % 1000);
      Value(out, r->achieved);
      out += '\n';
    }
    line("rolling", "measured", w.Rolling());
    line("lifetime", "measured", w.lifetime_gpu_s > 0 ? w.lifetime_useful_s / w.lifetime_gpu_s : -1);
    line("between", "estimated", w.estimated);
  }
  // The counter model's figures between windows, each labelled: the model alone and calibrated by
  // the job's windows on the same device model, with the calibrated one's error band.
  Header(
      out, "plasmient_counter_estimate_ratio", "gauge",
      "ESTIMATE from device counters between kernel windows (docs/counters.md): achieved fraction of peak "
      "from pipe activity x SM clock; calibration=\"none\": the model alone, \"windows\": corrected by the "
      "job's kernel windows on the same device model (calibrated=\"false\" below 3 windows).");
  for (const auto& [k, w] : windowed_) {
    if (w.uncalibrated < 0) continue;
    out += fmt::format("plasmient_counter_estimate_ratio{{{},calibration=\"none\"}} ", window_labels(k, w));
    Value(out, w.uncalibrated);
    out += fmt::format("\nplasmient_counter_estimate_ratio{{{},calibration=\"windows\",calibrated=\"{}\"}} ",
                       window_labels(k, w), w.calibrated ? "true" : "false");
    Value(out, w.estimated);
    out += '\n';
  }
  Header(out, "plasmient_counter_estimate_band_ratio", "gauge",
         "The calibrated counter estimate's error band (±): from the leave-one-out residuals of the job's "
         "windows, 0.10 when uncalibrated.");
  for (const auto& [k, w] : windowed_) {
    if (w.band < 0) continue;
    out += fmt::format("plasmient_counter_estimate_band_ratio{{{}}} ", window_labels(k, w));
    Value(out, w.band);
    out += '\n';
  }
  Header(out, "plasmient_counter_calibration_windows", "gauge",
         "Kernel windows the counter estimate's calibration is fitted on (the job, its device model).");
  for (const auto& [k, w] : windowed_) {
    if (w.band < 0) continue;
    out += fmt::format("plasmient_counter_calibration_windows{{{}}} {}\n", window_labels(k, w),
                       w.calibration_pairs);
  }
  auto device_gauge = [&](std::string_view name, std::string_view help, double WindowSeries::*field) {
    Header(out, name, "gauge", help);
    for (const auto& [k, w] : windowed_) {
      if (w.*field < 0) continue;
      out += fmt::format("{}{{{}}} ", name, window_labels(k, w));
      Value(out, w.*field);
      out += '\n';
    }
  };
  device_gauge("plasmient_tensor_active_ratio",
               "Device tier (NVML GPM, or GPU_METRICS of an Nsight Systems export): share of the latest "
               "analysis's window W, or samples file, with the tensor pipes active.",
               &WindowSeries::tensor_active);
  device_gauge("plasmient_sm_active_ratio",
               "Device tier (NVML GPM, or GPU_METRICS of an Nsight Systems export): share of the latest "
               "analysis's window W, or samples file, with SMs active.",
               &WindowSeries::sm_active);
  device_gauge("plasmient_dram_active_ratio",
               "Device tier (NVML GPM, or GPU_METRICS of an Nsight Systems export): share of the latest "
               "analysis's window W, or samples file, with DRAM bandwidth used.",
               &WindowSeries::dram_active);
  Header(out, "plasmient_kernel_windows_total", "counter", "Kernel windows of duty-cycled agents analyzed.");
  for (const auto& [k, w] : windowed_) {
    out += fmt::format("plasmient_kernel_windows_total{{{}}} {}\n", window_labels(k, w),
                       held(w.release_ns) ? 0 : w.windows);
  }
  Header(out, "plasmient_loss_ratio", "gauge",
         "Share of the trace window lost, by category (sums with the achieved fraction to 1).");
  for (const auto& [k, s] : rows) {
    for (std::size_t i = 0; i < verdict::kLossCount; ++i) {
      out += fmt::format("plasmient_loss_ratio{{{},category=\"{}\"}} ", labels(*k, *s),
                         verdict::LossKey(static_cast<verdict::Loss>(i)));
      Value(out, s->loss[i]);
      out += '\n';
    }
  }
  gauge("plasmient_gpu_seconds_total", "counter",
        "GPU-seconds of trace windows analyzed (0 for --counter-hold-s after the series appears).",
        [&](const RankSeries& s) { return held(s.release_ns) ? 0.0 : s.gpu_s; });
  gauge("plasmient_wasted_gpu_seconds_total", "counter",
        "GPU-seconds analyzed that did no useful arithmetic (window minus useful).",
        [&](const RankSeries& s) { return held(s.release_ns) ? 0.0 : s.wasted_s; });
  Header(out, "plasmient_step_seconds", "histogram", "Duration of profiler steps on the GPU timeline.");
  for (const auto& [k, s] : rows) {
    std::string l = labels(*k, *s);
    bool zero = held(s->release_ns);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kStepBucketsS.size(); ++i) {
      cumulative += zero ? 0 : s->buckets[i];
      out +=
          fmt::format("plasmient_step_seconds_bucket{{{},le=\"{}\"}} {}\n", l, kStepBucketsS[i], cumulative);
    }
    out += fmt::format("plasmient_step_seconds_bucket{{{},le=\"+Inf\"}} {}\n", l, zero ? 0 : s->steps);
    out += fmt::format("plasmient_step_seconds_sum{{{}}} ", l);
    Value(out, zero ? 0.0 : s->steps_sum_s);
    out += fmt::format("\nplasmient_step_seconds_count{{{}}} {}\n", l, zero ? 0 : s->steps);
  }
  // The top kernels and module types of each job: the metric, the label naming the row, which rows.
  auto top = [&](std::string_view name, std::string_view label, std::string_view help, bool layers,
                 auto get) {
    Header(out, name, "gauge", help);
    for (const auto& [job, t] : tops_) {
      for (const auto& row : layers ? t.tops.layer_types : t.tops.kernels) {
        out += fmt::format("{}{{Hostname=\"{}\",plasmient_job=\"{}\",{}=\"{}\",loss=\"{}\"}} ", name,
                           EscapeLabelValue(t.host), EscapeLabelValue(job), label,
                           EscapeLabelValue(NameLabel(row.name)), EscapeLabelValue(row.loss));
        Value(out, get(row));
        out += '\n';
      }
    }
  };
  top("plasmient_kernel_gpu_seconds", "kernel",
      "GPU time of one of the job's top kernels (by lost time) in its latest analysis; loss: where most of "
      "its "
      "lost time went.",
      false, [](const TopSample& t) { return t.gpu_s; });
  top("plasmient_kernel_lost_gpu_seconds", "kernel",
      "GPU time one of the job's top kernels lost (no useful arithmetic) in its latest analysis.", false,
      [](const TopSample& t) { return t.lost_s; });
  top("plasmient_layer_gpu_seconds", "layer_type",
      "GPU time of one of the job's top module types (docs/layers.md) in its latest analysis.", true,
      [](const TopSample& t) { return t.gpu_s; });
  top("plasmient_layer_lost_gpu_seconds", "layer_type",
      "GPU time one of the job's top module types lost in its latest analysis (achieved = 1 - lost / GPU "
      "time).",
      true, [](const TopSample& t) { return t.lost_s; });
  Header(out, "plasmient_cluster_ranks", "gauge",
         "Ranks of the job whose stored rows the cluster layer last read (serve --cluster-every-s).");
  for (const auto& [job, c] : cluster_) {
    out +=
        fmt::format("plasmient_cluster_ranks{{plasmient_job=\"{}\"}} {}\n", EscapeLabelValue(job), c.ranks);
  }
  auto straggler = [&](std::string_view name, std::string_view help, auto get) {
    Header(out, name, "gauge", help);
    for (const auto& [job, c] : cluster_) {
      for (const auto& st : c.stragglers) {
        out += fmt::format("{}{{plasmient_job=\"{}\",rank=\"{}\"}} ", name, EscapeLabelValue(job), st.rank);
        Value(out, get(st));
        out += '\n';
      }
    }
  };
  straggler("plasmient_cluster_straggler_caused_wait_seconds",
            "Seconds the job's other ranks waited on this straggler at collectives (docs/cluster.md).",
            [](const verdict::Straggler& st) { return st.caused_wait_s; });
  straggler("plasmient_cluster_straggler_capacity_ratio",
            "The straggler's caused wait over the job's capacity (Σ of the ranks' windows).",
            [](const verdict::Straggler& st) { return st.capacity_fraction; });
  std::map<std::string, std::vector<const LiveSample*>> live_by_name;
  for (const auto& s : live_) live_by_name[s.name].push_back(&s);
  for (const auto& [name, samples] : live_by_name) {
    std::string metric = "plasmient_live_" + name;
    Header(out, metric, "gauge", "Live sample of the GPU.");
    for (const auto* s : samples) {
      out += fmt::format("{}{{Hostname=\"{}\",gpu=\"{}\"}} ", metric, EscapeLabelValue(live_host_),
                         EscapeLabelValue(s->gpu));
      Value(out, s->value);
      out += '\n';
    }
  }
}

}  // namespace plasmient::serve
