#include "fleet/metrics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace plasmient::fleet {
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

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

void MetricsRegistry::RecordJob(const verdict::JobVerdict& job, const JobContext& context) {
  std::lock_guard lock(mu_);
  dirty_ = true;
  auto it = std::find(job_order_.begin(), job_order_.end(), context.job_id);
  if (it != job_order_.end()) job_order_.erase(it);
  job_order_.push_back(context.job_id);
  while (job_order_.size() > max_jobs_) {
    const std::string& old = job_order_.front();
    auto lo = series_.lower_bound(Key{old, INT64_MIN});
    while (lo != series_.end() && lo->first.first == old) lo = series_.erase(lo);
    job_order_.pop_front();
  }
  for (const auto& rank : job.ranks) {
    if (!rank.no_gpu_reason.empty()) continue;
    RankSeries& s = series_[Key{context.job_id, rank.rank}];
    s.host = context.host;
    s.gpu = rank.device.name;
    s.utilization = rank.run.utilization();
    s.achieved = rank.run.achieved();
    for (std::size_t i = 0; i < verdict::kLossCount; ++i)
      s.loss[i] = rank.run.loss(static_cast<verdict::Loss>(i));
    s.gpu_s += rank.run.wall_s;
    s.wasted_s += rank.run.wall_s - rank.run.useful_s;
    for (const auto& step : rank.steps) {
      double d = step.figures.wall_s;
      auto b = std::lower_bound(kStepBucketsS.begin(), kStepBucketsS.end(), d);
      if (b != kStepBucketsS.end()) ++s.buckets[static_cast<std::size_t>(b - kStepBucketsS.begin())];
      ++s.steps;
      s.steps_sum_s += d;
    }
  }
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

std::string MetricsRegistry::Render(const std::vector<SelfMetric>& self) const {
  std::string out;
  {
    std::lock_guard lock(mu_);
    if (dirty_) {
      cache_.clear();
      RenderSeries(cache_);
      dirty_ = false;
    }
    out.reserve(cache_.size() + 256 * (self.size() + 1));
    out = cache_;
  }
  for (const auto& m : self) {
    Header(out, m.name, m.type, m.help);
    out += m.name;
    out += ' ';
    Value(out, m.value);
    out += '\n';
  }
  return out;
}

void MetricsRegistry::RenderSeries(std::string& out) const {
  out.reserve(256 + series_.size() * 2048);
  std::vector<std::pair<const Key*, const RankSeries*>> rows;
  rows.reserve(series_.size());
  for (const auto& [k, s] : series_) rows.emplace_back(&k, &s);
  auto labels = [](const Key& k, const RankSeries& s) {
    return fmt::format("host=\"{}\",gpu=\"{}\",job=\"{}\",rank=\"{}\"", EscapeLabelValue(s.host),
                       EscapeLabelValue(s.gpu), EscapeLabelValue(k.first), k.second);
  };
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
  gauge("plasmient_achieved_fraction_of_peak_ratio", "gauge",
        "Useful FLOP/s over the chip's peak for the dominant dtype, over the trace window.",
        [](const RankSeries& s) { return s.achieved; });
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
  gauge("plasmient_gpu_seconds_total", "counter", "GPU-seconds of trace windows analyzed.",
        [](const RankSeries& s) { return s.gpu_s; });
  gauge("plasmient_wasted_gpu_seconds_total", "counter",
        "GPU-seconds analyzed that did no useful arithmetic (window minus useful).",
        [](const RankSeries& s) { return s.wasted_s; });
  Header(out, "plasmient_step_seconds", "histogram", "Duration of profiler steps on the GPU timeline.");
  for (const auto& [k, s] : rows) {
    std::string l = labels(*k, *s);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kStepBucketsS.size(); ++i) {
      cumulative += s->buckets[i];
      out +=
          fmt::format("plasmient_step_seconds_bucket{{{},le=\"{}\"}} {}\n", l, kStepBucketsS[i], cumulative);
    }
    out += fmt::format("plasmient_step_seconds_bucket{{{},le=\"+Inf\"}} {}\n", l, s->steps);
    out += fmt::format("plasmient_step_seconds_sum{{{}}} ", l);
    Value(out, s->steps_sum_s);
    out += fmt::format("\nplasmient_step_seconds_count{{{}}} {}\n", l, s->steps);
  }
  std::map<std::string, std::vector<const LiveSample*>> live_by_name;
  for (const auto& s : live_) live_by_name[s.name].push_back(&s);
  for (const auto& [name, samples] : live_by_name) {
    std::string metric = "plasmient_live_" + name;
    Header(out, metric, "gauge", "Live sample of the GPU.");
    for (const auto* s : samples) {
      out += fmt::format("{}{{host=\"{}\",gpu=\"{}\"}} ", metric, EscapeLabelValue(live_host_),
                         EscapeLabelValue(s->gpu));
      Value(out, s->value);
      out += '\n';
    }
  }
}

}  // namespace plasmient::fleet
