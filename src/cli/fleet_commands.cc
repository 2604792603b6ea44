#include "cli/fleet_commands.h"

#include "cli/analyze_command.h"
#include "cli/record_flags.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "base/time_units.h"
#include "fleet/cluster_query.h"
#include "fleet/dcgm_estimate.h"
#include "fleet/fleet_query.h"
#include "job/bill.h"
#include "serve/serve.h"
#include "store/clickhouse_store.h"
#include "store/record.h"
#include "store/sqlite_store.h"
#include "whatif/levers.h"

namespace plasmient::cli {
namespace {

struct ClickHouseFlags {
  std::string url, database = "plasmient", cluster, shard_database;
  bool raw_rows = false;  // --raw-rows (fleet, bill --whatif)
  int raw_retention_days = 0;
  void Add(CLI::App& app) {
    app.add_option("--clickhouse", url, "ClickHouse HTTP interface, http://HOST:PORT");
    app.add_option("--clickhouse-db", database, "ClickHouse database")->capture_default_str();
    app.add_option("--clickhouse-cluster", cluster,
                   "cluster (remote_servers) for Distributed tables over <table>_local");
    app.add_option("--clickhouse-shard-db", shard_database,
                   "database of <table>_local on each shard (default: --clickhouse-db; - for each replica's "
                   "default_database)");
    app.add_option(
           "--raw-retention-days", raw_retention_days,
           "ClickHouse 19.6 and later: raw tables made with a TTL of this many days (rollups are kept); "
           "older servers: fleet --prune-older-than")
        ->check(CLI::Range(0, 100000));
  }
  store::ClickHouseOptions Options() const {
    store::ClickHouseOptions o;
    o.url = url;
    o.database = database;
    o.cluster = cluster;
    o.shard_database = shard_database;
    o.raw_rows = raw_rows;
    o.raw_retention_days = raw_retention_days;
    return o;
  }
};

struct ServeArgs {
  AnalyzeArgs analyze;
  std::string spool, db, listen = "127.0.0.1:9464", host;
  std::vector<std::string> labels;
  ClickHouseFlags clickhouse;
  std::int64_t outbox_mb = 256;
  std::size_t max_jobs = 32;
  double counter_hold_s = 90;
  int poll_ms = 200;
  bool delete_done = false;
  bool any_owner = false;
  serve::AnalysisLimits limits;
  int http_timeout_s = 5;
  double cluster_every_s = 0;
  int workers = 0;  // 0: the core count
  bool verbose = false;
};

int RunServe(ServeArgs& a) {
  if (!FinishVerdictOptions(a.analyze)) return 2;
  serve::ServeOptions o;
  o.spool = a.spool;
  o.db_path = a.db;
  o.host = a.host;
  o.analyze = a.analyze.options;
  o.outbox_max_bytes = a.outbox_mb << 20;
  o.max_jobs_in_metrics = a.max_jobs;
  o.counter_hold_s = a.counter_hold_s;
  o.poll_ms = a.poll_ms;
  o.delete_done = a.delete_done;
  o.spool_rules.any_owner = a.any_owner;
  o.limits = a.limits;
  o.http_read_timeout_s = a.http_timeout_s;
  o.cluster_every_s = a.cluster_every_s;
  o.workers = a.workers;
  o.verbose = a.verbose;
  if (!ParseLabelFlags(a.labels, o.labels)) return 2;
  auto listen = serve::ParseListen(a.listen);
  if (!listen) {
    fmt::print(stderr, "plasmient: {}\n", listen.error().message);
    return 2;
  }
  o.listen_host = listen->first;
  o.listen_port = listen->second;
  if (!a.clickhouse.url.empty()) o.clickhouse = a.clickhouse.Options();

  // SIGINT/SIGTERM are taken by this thread alone (sigwait); the daemon's threads inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  serve::ServeDaemon daemon(std::move(o));
  if (auto s = daemon.Start(); !s) {
    fmt::print(stderr, "plasmient: {}\n", s.error().message);
    return 1;
  }
  fmt::print(stderr, "plasmient serve: watching {}, metrics at http://{}:{}/metrics\n", a.spool,
             listen->first, daemon.port());
  int sig = 0;
  sigwait(&signals, &sig);
  fmt::print(stderr, "plasmient serve: {}, stopping (an analysis in progress is redone on the next start)\n",
             sig == SIGTERM ? "SIGTERM" : "SIGINT");
  daemon.Stop();
  daemon.Wait();
  const auto& c = daemon.counters();
  fmt::print(stderr, "plasmient serve: stopped ({} analyzed, {} failed, {} duplicates)\n", c.analyzed.load(),
             c.failed.load(), c.duplicates.load());
  return 0;
}

struct FleetArgs {
  std::string db, top, by = "wasted-gpu-hours", since, until, job, prune_older_than;
  ClickHouseFlags clickhouse;
  bool trend = false, stragglers = false, cluster = false, init_schema = false, local_only = false,
       tsv = false;
  std::int64_t limit = 20;
  std::vector<std::string> lever;  // --lever NAME [VALUE]
  // --prometheus: the estimate from dcgm-exporter's counters instead of a store.
  std::string prometheus, step = "60s", json, match;
  fleet::DcgmEstimateOptions dcgm;
  double price = 0;
  bool price_given = false;
};

// --job J --cluster: the cluster layer over the job's stored per-rank rows.
int RunStoredCluster(store::QueryableStore& store, const FleetArgs& a) {
  if (a.job.empty()) {
    fmt::print(stderr, "plasmient: fleet --cluster needs --job NAME\n");
    return 2;
  }
  auto stored = fleet::AnalyzeStoredCluster(store, a.job, verdict::AnalyzeOptions{});
  if (!stored) {
    fmt::print(stderr, "plasmient: {}\n", stored.error().message);
    return 1;
  }
  std::string text = fleet::RenderStoredCluster(*stored, static_cast<std::size_t>(a.limit));
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

// The store `fleet` and `bill --whatif` ask: ClickHouse when --clickhouse is given, else the SQLite
// file. Null with the exit code in `rc` when it cannot be opened.
std::unique_ptr<store::QueryableStore> OpenQueryStore(const std::string& db,
                                                      const ClickHouseFlags& clickhouse, bool init_schema,
                                                      bool local_only, int& rc) {
  if (!clickhouse.url.empty()) {
    auto ch = store::ClickHouseStore::Open(clickhouse.Options());
    if (!ch) {
      fmt::print(stderr, "plasmient: {}\n", ch.error().message);
      rc = 2;
      return nullptr;
    }
    if (init_schema) {
      if (auto s = (*ch)->EnsureSchema(local_only); !s) {
        fmt::print(stderr, "plasmient: {}\n", s.error().message);
        rc = 1;
        return nullptr;
      }
      fmt::print(stderr, "plasmient: schema ready in {}\n", clickhouse.database);
    }
    return std::move(*ch);
  }
  if (!db.empty()) {
    auto sqlite = store::SqliteStore::Open(db);
    if (!sqlite) {
      fmt::print(stderr, "plasmient: {}\n", sqlite.error().message);
      rc = 1;
      return nullptr;
    }
    return std::move(*sqlite);
  }
  fmt::print(stderr, "plasmient: a store is needed: --db FILE or --clickhouse URL\n");
  rc = 2;
  return nullptr;
}

// --since/--until into the query's window; false (after one line on stderr) when one is malformed.
bool ParseWindow(const std::string& since, const std::string& until, fleet::FleetQuery& q) {
  auto now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  for (auto [text, out] : {std::pair{&since, &q.since_ns}, std::pair{&until, &q.until_ns}}) {
    if (text->empty()) continue;
    auto t = fleet::ParseTime(*text, now_ns);
    if (!t) {
      fmt::print(stderr, "plasmient: {}\n", t.error().message);
      return false;
    }
    *out = *t;
  }
  return true;
}

// A store's answer as `fleet` prints it; 1 (after one line on stderr) when the query failed.
int PrintTable(const Result<store::QueryResult>& r, bool tsv) {
  if (!r) {
    fmt::print(stderr, "plasmient: {}\n", r.error().message);
    return 1;
  }
  std::string text = tsv ? fleet::FormatTsv(*r) : fleet::FormatTable(*r);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

// --prune-older-than AGE: the raw rows of analyses before it leave ClickHouse, whole days at a time.
int RunPrune(const FleetArgs& a) {
  if (a.clickhouse.url.empty()) {
    fmt::print(stderr, "plasmient: fleet --prune-older-than prunes ClickHouse: give --clickhouse URL\n");
    return 2;
  }
  fleet::FleetQuery window;
  if (!ParseWindow(a.prune_older_than, "", window)) return 2;
  if (!window.since_ns) {
    fmt::print(stderr, "plasmient: fleet --prune-older-than needs an age, e.g. 30d\n");
    return 2;
  }
  auto ch = store::ClickHouseStore::Open(a.clickhouse.Options());
  if (!ch) {
    fmt::print(stderr, "plasmient: {}\n", ch.error().message);
    return 2;
  }
  auto dropped = (*ch)->PruneRawRows(*window.since_ns);
  if (!dropped) {
    fmt::print(stderr, "plasmient: {}\n", dropped.error().message);
    return 1;
  }
  fmt::print(stderr, "plasmient: {} day partitions of raw rows dropped from {}\n", *dropped,
             a.clickhouse.database);
  return 0;
}

// --prometheus URL: the estimated achieved fraction and bill from dcgm-exporter's counters.
int RunDcgmEstimate(const FleetArgs& a, const CLI::App& app) {
  for (const char* other :
       {"--db", "--clickhouse", "--top", "--trend", "--stragglers", "--cluster", "--job", "--lever",
        "--init-schema", "--by", "--prune-older-than", "--raw-rows", "--tsv"}) {
    if (app.count(other) > 0) {
      fmt::print(stderr, "plasmient: fleet: {} asks a store; --prometheus reads DCGM counters instead\n",
                 other);
      return 2;
    }
  }
  fleet::FleetQuery window;
  if (!ParseWindow(a.since.empty() ? "24h" : a.since, a.until, window)) return 2;
  auto step = fleet::ParseStepSeconds(a.step);
  if (!step) {
    fmt::print(stderr, "plasmient: {}\n", step.error().message);
    return 2;
  }
  fleet::DcgmReadOptions read;
  read.source = a.prometheus;
  read.match = a.match;
  read.window.start_s = *window.since_ns / kNsPerS;
  read.window.end_s = window.until_ns ? *window.until_ns / kNsPerS
                                      : std::chrono::duration_cast<std::chrono::seconds>(
                                            std::chrono::system_clock::now().time_since_epoch())
                                            .count();
  read.window.step_s = *step;
  fleet::DcgmEstimateOptions options = a.dcgm;
  if (a.price_given) options.price_per_gpu_hour = a.price;
  auto get = fleet::PrometheusHttpGet(a.prometheus);
  if (!get) {
    fmt::print(stderr, "plasmient: {}\n", get.error().message);
    return 2;
  }
  auto counters = fleet::ReadDcgmCounters(*get, read);
  if (!counters) {
    fmt::print(stderr, "plasmient: {}\n", counters.error().message);
    return 1;
  }
  auto estimate = fleet::EstimateFromDcgm(*counters, read, options);
  if (!estimate) {
    fmt::print(stderr, "plasmient: {}\n", estimate.error().message);
    return 1;
  }
  if (!a.json.empty() && !WriteOutput(a.json, fleet::DcgmEstimateJson(*estimate), "JSON estimate")) return 1;
  if (a.json != "-") {
    std::string text = fleet::FormatDcgmEstimate(*estimate, static_cast<std::size_t>(a.limit));
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return 0;
}

int RunFleet(const FleetArgs& a, const CLI::App& app) {
  if (!a.prometheus.empty()) return RunDcgmEstimate(a, app);
  if (!a.prune_older_than.empty()) return RunPrune(a);
  for (const char* dcgm : {"--step", "--job-label", "--team-label", "--price", "--json", "--match"}) {
    if (app.count(dcgm) > 0) {
      fmt::print(stderr, "plasmient: fleet: {} goes with --prometheus URL\n", dcgm);
      return 2;
    }
  }
  int rc = 0;
  std::unique_ptr<store::QueryableStore> store =
      OpenQueryStore(a.db, a.clickhouse, a.init_schema, a.local_only, rc);
  if (!store) return rc;
  if (a.cluster) return RunStoredCluster(*store, a);
  fleet::FleetQuery q;
  q.limit = a.limit;
  q.job = a.job;
  q.by_gpu_hours = a.by == "gpu-hours";
  q.by_recoverable = a.by == "recoverable-gpu-hours";
  if (q.by_recoverable && (a.top != "jobs" || a.trend || a.stragglers)) {
    fmt::print(stderr, "plasmient: fleet: --by recoverable-gpu-hours ranks jobs: use it with --top jobs\n");
    return 2;
  }
  if (!a.lever.empty()) {
    if (!q.by_recoverable) {
      fmt::print(stderr, "plasmient: fleet: --lever goes with --top jobs --by recoverable-gpu-hours\n");
      return 2;
    }
    auto lever = whatif::ParseLever(a.lever);
    if (!lever) {
      fmt::print(stderr, "plasmient: fleet: {}\n", lever.error().message);
      return 2;
    }
    q.lever = lever->name;
    q.lever_value = lever->value;
  }
  if (!ParseWindow(a.since, a.until, q)) return 2;
  if (a.trend) {
    q.question = fleet::FleetQuestion::kTrend;
  } else if (a.stragglers) {
    q.question = fleet::FleetQuestion::kStragglers;
  } else if (a.top == "ops") {
    q.question = fleet::FleetQuestion::kTopOps;
  } else if (a.top == "jobs") {
    q.question = fleet::FleetQuestion::kTopJobs;
  } else if (a.top == "users") {
    q.question = fleet::FleetQuestion::kTopUsers;
  } else if (a.top == "teams") {
    q.question = fleet::FleetQuestion::kTopTeams;
  } else if (a.top == "layers") {
    q.question = fleet::FleetQuestion::kTopLayers;
  } else if (a.top == "kernels") {
    q.question = fleet::FleetQuestion::kTopKernels;
  } else if (a.init_schema) {
    return 0;
  } else {
    fmt::print(
        stderr,
        "plasmient: fleet: ask --top kernels|ops|layers|jobs|users|teams, --trend, --stragglers or --job J "
        "--cluster\n");
    return 2;
  }
  return PrintTable(store->Query(fleet::BuildSql(q, *store)), a.tsv);
}

struct BillArgs {
  double gpus = 0, price = 0, achieved = 0, target = verdict::kDefaultTargetFraction;
  // --whatif LEVERS: per job, what each lever recovers, from a store.
  std::string whatif, db, since, until, job;
  ClickHouseFlags clickhouse;
  std::int64_t limit = 20;
  bool tsv = false;
};

int RunLeverBill(const BillArgs& a) {
  auto levers = whatif::ParseLeverList(a.whatif, "--whatif");
  if (!levers) {
    fmt::print(stderr, "plasmient: bill: {}\n", levers.error().message);
    return 2;
  }
  fleet::FleetQuery q;
  q.limit = a.limit;
  q.job = a.job;
  if (!ParseWindow(a.since, a.until, q)) return 2;
  int rc = 0;
  auto store = OpenQueryStore(a.db, a.clickhouse, false, false, rc);
  if (!store) return rc;
  return PrintTable(fleet::QueryLeverBill(*store, q, *levers), a.tsv);
}

int RunBill(const BillArgs& a, const CLI::App& bill) {
  if (!a.whatif.empty()) {
    for (const char* rate : {"--gpus", "--price", "--achieved"}) {
      if (bill.count(rate) > 0) {
        fmt::print(stderr, "plasmient: bill: {} is the rate arithmetic; --whatif reads the store's jobs\n",
                   rate);
        return 2;
      }
    }
    return RunLeverBill(a);
  }
  for (const char* store : {"--db", "--clickhouse", "--job", "--since", "--until", "--limit"}) {
    if (bill.count(store) > 0) {
      fmt::print(stderr, "plasmient: bill: {} goes with --whatif LEVERS\n", store);
      return 2;
    }
  }
  for (const char* rate : {"--gpus", "--price", "--achieved"}) {
    if (bill.count(rate) == 0) {
      fmt::print(stderr, "plasmient: bill: {} is required (or --whatif LEVERS with a store)\n", rate);
      return 2;
    }
  }
  auto r = job::RatesFor(a.gpus, a.price, a.achieved, a.target);
  if (!r) {
    fmt::print(stderr, "plasmient: {}\n", r.error().message);
    return 2;
  }
  std::string text = job::FormatBill(*r);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

void RegisterFleetCommands(CLI::App& app, std::vector<CommandHook>& hooks) {
  auto serve_args = std::make_shared<ServeArgs>();
  auto* serve = app.add_subcommand(
      "serve", "analyze traces as they land in a spool folder; Prometheus metrics over HTTP");
  serve->add_option("--spool", serve_args->spool, "the folder traces are dropped into (see docs/fleet.md)")
      ->required();
  serve->add_option("--db", serve_args->db, "SQLite store (default: SPOOL/.plasmient/store.sqlite)");
  serve->add_option("--listen", serve_args->listen, "HOST:PORT for /metrics (loopback unless asked)")
      ->capture_default_str();
  serve->add_option("--label", serve_args->labels,
                    "key=value label on every job (user, team, ...); repeatable");
  serve->add_option("--host", serve_args->host, "host label (default: the host name)");
  serve->add_option("--clickhouse-outbox-mb", serve_args->outbox_mb, "bound of the on-disk ClickHouse outbox")
      ->capture_default_str();
  serve->add_option("--max-jobs", serve_args->max_jobs, "jobs kept in the metrics (most recent)")
      ->capture_default_str();
  serve
      ->add_option("--counter-hold-s", serve_args->counter_hold_s,
                   "a new series' counters show 0 this long before its figures, so that rate() and "
                   "increase() count a job's first analysis (at least the scrape interval)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  serve->add_option("--poll-ms", serve_args->poll_ms, "spool scan interval when idle")
      ->check(CLI::Range(10, 60000));
  serve
      ->add_option("--cluster-every-s", serve_args->cluster_every_s,
                   "run the cluster layer over the store (ClickHouse when given) for jobs whose ranks' rows "
                   "changed, this often; exports the stragglers (0: never)")
      ->check(CLI::Range(0.0, 86400.0));
  serve->add_flag("--delete-done", serve_args->delete_done,
                  "delete analyzed traces instead of moving them to done/");
  serve->add_flag("--any-owner", serve_args->any_owner,
                  "accept spool entries owned by other users than the spool's owner");
  serve
      ->add_option("--analysis-timeout-s", serve_args->limits.timeout_s,
                   "wall-time limit of one entry's analysis (its own process)")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  serve
      ->add_option("--analysis-memory-mb", serve_args->limits.memory_mb,
                   "address space one entry's analysis may add")
      ->check(CLI::Range(std::int64_t{16}, std::int64_t{1} << 30))
      ->capture_default_str();
  serve
      ->add_option("--workers", serve_args->workers,
                   "entries analyzed at once, each in its own process under the --analysis-* limits "
                   "and parsing on cores / N threads (default: the core count)")
      ->check(CLI::Range(1, 1024));
  serve->add_flag("-v,--verbose", serve_args->verbose,
                  "a line on stderr as each entry is taken for analysis and as it is recorded");
  serve->add_option("--analysis-cpu-s", serve_args->limits.cpu_s, "CPU-time limit of one entry's analysis")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30))
      ->capture_default_str();
  serve
      ->add_option("--http-timeout-s", serve_args->http_timeout_s,
                   "HTTP: how long a request head may take to arrive, a response to go out, and an idle "
                   "connection to stay open")
      ->check(CLI::Range(1, 600))
      ->capture_default_str();
  serve_args->clickhouse.Add(*serve);
  AddVerdictOptions(*serve, serve_args->analyze);
  // Each analysis runs in its own process under the --analysis-* limits: one rank at a time, so
  // that a job's memory stays what the limit was set for.
  serve->get_option("--jobs")->default_val(1);
  hooks.push_back({serve, [serve_args] { return RunServe(*serve_args); }});

  auto fleet_args = std::make_shared<FleetArgs>();
  auto* fleet = app.add_subcommand(
      "fleet", "ask the store: top kernels/ops/layers/jobs/users by wasted GPU-hours, trends, stragglers");
  fleet->add_option("--db", fleet_args->db, "SQLite store");
  fleet_args->clickhouse.Add(*fleet);
  fleet->add_option("--top", fleet_args->top, "kernels, ops, layers (module types), jobs, users or teams")
      ->check(CLI::IsMember({"kernels", "ops", "layers", "jobs", "users", "teams"}));
  fleet
      ->add_option(
          "--by", fleet_args->by,
          "wasted-gpu-hours or gpu-hours; with --top jobs also recoverable-gpu-hours (under --lever)")
      ->check(CLI::IsMember({"wasted-gpu-hours", "gpu-hours", "recoverable-gpu-hours"}))
      ->capture_default_str();
  fleet->add_option("--since", fleet_args->since,
                    "analyses at or after: Unix seconds, YYYY-MM-DD[THH:MM:SSZ], or 24h/7d ago");
  fleet->add_option("--until", fleet_args->until, "analyses before (same forms)");
  fleet->add_option("--job", fleet_args->job, "only this job");
  fleet
      ->add_option("--lever", fleet_args->lever,
                   "with --by recoverable-gpu-hours: overlap-comm (default), cuda-graphs, batch-scale K "
                   "(2, 4 or 8) or microbatches M (twice the trace's)")
      ->expected(1, 2);
  fleet->add_flag("--trend", fleet_args->trend, "achieved fraction per analysis of each job, in time order");
  fleet->add_flag("--stragglers", fleet_args->stragglers,
                  "ranks the others waited for, most waited-for first");
  fleet->add_flag(
      "--cluster", fleet_args->cluster,
      "with --job: clock offsets, waits, stragglers and pipeline stages from the ranks' stored rows");
  fleet->add_option("--limit", fleet_args->limit, "rows")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  fleet->add_flag("--init-schema", fleet_args->init_schema,
                  "create the ClickHouse database and tables when missing");
  fleet->add_flag("--local-only", fleet_args->local_only,
                  "with --init-schema: only the shard tables (<table>_local)");
  fleet->add_flag("--tsv", fleet_args->tsv, "TabSeparated with a header, numbers in full");
  fleet->add_flag(
      "--raw-rows", fleet_args->clickhouse.raw_rows,
      "ClickHouse: answer from the raw rows, not the hourly rollups (slow on a fleet; checks them)");
  fleet->add_option("--prune-older-than", fleet_args->prune_older_than,
                    "ClickHouse: drop raw rows of analyses older than this (30d, or a date), whole days; "
                    "rollups are kept");
  fleet->add_option("--prometheus", fleet_args->prometheus,
                    "estimate achieved fraction and bill from dcgm-exporter's counters in this Prometheus, "
                    "http://HOST[:PORT] (window: --since, default 24h, and --until)");
  fleet
      ->add_option("--step", fleet_args->step,
                   "with --prometheus: the step counters are averaged over (60s, 5m)")
      ->capture_default_str();
  fleet
      ->add_option("--job-label", fleet_args->dcgm.job_label, "with --prometheus: the label that names a job")
      ->capture_default_str();
  fleet
      ->add_option("--team-label", fleet_args->dcgm.team_label,
                   "with --prometheus: the label that names a team")
      ->capture_default_str();
  fleet
      ->add_option(
          "--price", fleet_args->price,
          "with --prometheus: dollars per GPU-hour (default: each model's list price in the device table)")
      ->check(CLI::NonNegativeNumber);
  fleet->add_option("--match", fleet_args->match,
                    "with --prometheus: PromQL label matchers for every counter, e.g. "
                    "'cluster=\"a\",Hostname=~\"gpu-.*\"'");
  AddJsonOption(*fleet, fleet_args->json, "with --prometheus: write the estimate as JSON");
  hooks.push_back({fleet, [fleet_args, fleet] {
                     fleet_args->price_given = fleet->count("--price") > 0;
                     return RunFleet(*fleet_args, *fleet);
                   }});

  auto bill_args = std::make_shared<BillArgs>();
  auto* bill = app.add_subcommand(
      "bill",
      "what-if: N GPUs at a price and an achieved fraction, per day and per year; or, with --whatif, "
      "what each lever would recover per stored job");
  bill->add_option("--gpus", bill_args->gpus, "GPUs");
  bill->add_option("--price", bill_args->price, "dollars per GPU-hour");
  bill->add_option("--achieved", bill_args->achieved, "achieved fraction of peak, 0..1");
  bill->add_option("--target", bill_args->target, "target fraction (MFU) for the addressable share")
      ->capture_default_str();
  bill->add_option(
      "--whatif", bill_args->whatif,
      "levers, comma-separated: overlap-comm, cuda-graphs, batch-scale=K (2, 4 or 8), "
      "microbatches=M (twice the trace's); per job, the GPU-hours and dollars each would recover "
      "(needs --db or --clickhouse)");
  bill->add_option("--db", bill_args->db, "with --whatif: SQLite store");
  bill_args->clickhouse.Add(*bill);
  bill->add_flag("--tsv", bill_args->tsv, "with --whatif: TabSeparated with a header, numbers in full");
  bill->add_flag("--raw-rows", bill_args->clickhouse.raw_rows,
                 "with --whatif on ClickHouse: from the raw rows, not the hourly rollups");
  bill->add_option("--job", bill_args->job, "with --whatif: only this job");
  bill->add_option("--since", bill_args->since, "with --whatif: analyses at or after (as fleet --since)");
  bill->add_option("--until", bill_args->until, "with --whatif: analyses before (same forms)");
  bill->add_option("--limit", bill_args->limit, "with --whatif: jobs per lever")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  hooks.push_back({bill, [bill_args, bill] { return RunBill(*bill_args, *bill); }});
}

}  // namespace plasmient::cli
