#include "store/clickhouse_store.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <httplib.h>

#include "base/text.h"
#include "store/clickhouse_rollups.h"

namespace plasmient::store {
std::string UrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

namespace {

std::string_view ClickHouseType(ColumnType t) {
  return t == ColumnType::kInt ? "Int64" : t == ColumnType::kFloat ? "Float64" : "String";
}

// The ClickHouse-only column that makes a row's identity: its position among its job's rows of
// that table, in the order the batch holds them (the same for every retry of one batch).
constexpr std::string_view kRowIndexColumn = "row_index";

}  // namespace

void AppendRowBinaryCell(std::string& out, const Cell& cell) {
  static_assert(std::endian::native == std::endian::little, "RowBinary numbers are little-endian");
  auto fixed = [&out](auto v) {
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    out.append(bytes, sizeof v);
  };
  if (const auto* i = std::get_if<std::int64_t>(&cell)) {
    fixed(*i);
  } else if (const auto* d = std::get_if<double>(&cell)) {
    fixed(StoredDouble(*d));
  } else {
    const auto& text = std::get<std::string>(cell);
    for (std::size_t n = text.size();; n >>= 7) {  // the length, unsigned LEB128
      out += static_cast<char>(n < 0x80 ? n : (n & 0x7f) | 0x80);
      if (n < 0x80) break;
    }
    out += text;
  }
}

std::string QuoteClickHouseString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

Result<std::string> BindClickHouseParams(const SqlQuery& query) {
  std::string out;
  const std::string& sql = query.sql;
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  bool in_literal = false;  // a ':name' inside a string literal is text
  for (std::size_t i = 0; i < sql.size();) {
    if (in_literal && sql[i] == '\\' && i + 1 < sql.size()) {
      out += sql.substr(i, 2);
      i += 2;
      continue;
    }
    if (sql[i] == '\'') in_literal = !in_literal;
    if (in_literal || sql[i] != ':' || i + 1 >= sql.size() || !is_name(sql[i + 1])) {
      out += sql[i++];
      continue;
    }
    std::size_t end = i + 1;
    while (end < sql.size() && is_name(sql[end])) ++end;
    std::string_view name(sql.data() + i, end - i);
    auto p = std::find_if(query.params.begin(), query.params.end(),
                          [&](const SqlParam& q) { return q.name == name; });
    if (p == query.params.end()) return Fail("ClickHouse query: no value for parameter {}", name);
    out += QuoteClickHouseString(p->value);
    i = end;
  }
  return out;
}

std::string RawTableTtlSql(std::string_view version, int retention_days) {
  if (retention_days <= 0) return {};
  auto dot = version.find('.');
  auto major = ParseInt<int>(version.substr(0, dot));
  std::string_view rest = dot == std::string_view::npos ? std::string_view{} : version.substr(dot + 1);
  auto minor = ParseInt<int>(rest.substr(0, rest.find('.')));
  if (!major || !minor || std::pair{*major, *minor} < std::pair{19, 6}) return {};
  return fmt::format(" TTL toDateTime(intDiv(at_ns, 1000000000)) + INTERVAL {} DAY", retention_days);
}

Result<std::pair<std::string, int>> ParseHttpUrl(std::string_view url, std::string_view flag,
                                                 int default_port) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) return Fail("{} {}: expected http://HOST[:PORT]", flag, url);
  std::string_view rest = url.substr(kScheme.size());
  rest = rest.substr(0, rest.find('/'));
  auto colon = rest.rfind(':');
  int port = default_port;
  std::string_view host = rest;
  if (colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    std::string_view p = rest.substr(colon + 1);
    auto parsed = ParseInt<int>(p);
    if (!parsed || *parsed <= 0 || *parsed > 65535) return Fail("{} {}: bad port", flag, url);
    port = *parsed;
  }
  if (host.empty()) return Fail("{} {}: no host", flag, url);
  return std::pair{std::string(host), port};
}

ClickHouseStore::ClickHouseStore(ClickHouseOptions options) : options_(std::move(options)) {}
ClickHouseStore::~ClickHouseStore() = default;

Result<std::unique_ptr<ClickHouseStore>> ClickHouseStore::Open(const ClickHouseOptions& options) {
  auto hp = ParseHttpUrl(options.url);
  if (!hp) return std::unexpected(hp.error());
  std::unique_ptr<ClickHouseStore> s(new ClickHouseStore(options));
  if (s->options_.shard_database.empty()) s->options_.shard_database = options.database;
  s->client_ = std::make_unique<httplib::Client>(hp->first, hp->second);
  auto secs = static_cast<time_t>(options.timeout_s);
  s->client_->set_connection_timeout(2, 0);
  s->client_->set_read_timeout(secs, 0);
  s->client_->set_write_timeout(secs, 0);
  s->client_->set_keep_alive(true);
  // A POST's headers and body go out in two writes: with Nagle's algorithm the body waits for
  // the server's delayed ACK of the headers (40 ms on Linux), on every statement.
  s->client_->set_tcp_nodelay(true);
  return s;
}

Result<std::string> ClickHouseStore::Post(const std::string& url_query, const std::string& body) {
  auto res = client_->Post(("/?" + url_query).c_str(), body, "text/plain");
  if (!res) return Fail("{}: ClickHouse unreachable ({})", options_.url, httplib::to_string(res.error()));
  if (res->status != 200) {
    std::string msg = res->body.substr(0, 400);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    return Fail("{}: ClickHouse answered {}: {}", options_.url, res->status, msg);
  }
  return std::move(res->body);
}

Status ClickHouseStore::Execute(const std::string& sql) {
  auto r = Post("", sql);
  if (!r) return std::unexpected(r.error());
  return Ok();
}

std::string ClickHouseStore::LocalName(TableId id) const {
  std::string name(Table(id).name);
  return options_.cluster.empty() ? name : name + "_local";
}

std::string ClickHouseStore::QualifiedName(TableId id) const {
  return options_.database + "." + std::string(Table(id).name);
}

std::string ClickHouseStore::RollupLocalName(RollupId id) const {
  std::string name(Rollup(id).name);
  return options_.cluster.empty() ? name : name + "_local";
}

std::string ClickHouseStore::RollupName(RollupId id) const {
  return options_.raw_rows ? std::string() : options_.database + "." + std::string(Rollup(id).name);
}

// FINAL: rows of a batch inserted twice are read once even before ClickHouse merges them.
std::string ClickHouseStore::TableName(TableId id) const { return QualifiedName(id) + " FINAL"; }

Status ClickHouseStore::CheckRowIdentity(const std::vector<std::string>& tables) {
  std::string in;
  for (const auto& t : tables) {
    if (!in.empty()) in += ',';
    in += QuoteClickHouseString(t);
  }
  auto old =
      Query("SELECT table FROM system.columns WHERE database = " + QuoteClickHouseString(options_.database) +
            " AND table IN (" + in + ") GROUP BY table HAVING countIf(name = '" +
            std::string(kRowIndexColumn) + "') = 0");
  if (!old) return std::unexpected(old.error());
  if (old->rows.empty() || old->rows.front().empty()) return Ok();
  return Fail(
      "{}: table {}.{} has no {} column (made by an older Plasmient, where a retried insert could double "
      "rows): rename it away (RENAME TABLE) and it is made again; docs/fleet.md, \"Idempotent inserts\"",
      options_.url, options_.database, old->rows.front().front(), kRowIndexColumn);
}

Status ClickHouseStore::EnsureSchema(bool local_only) {
  PLASMIENT_TRY(Execute("CREATE DATABASE IF NOT EXISTS " + options_.database));
  std::string ttl;
  if (options_.raw_retention_days > 0) {
    auto version = Query("SELECT version()");
    if (!version) return std::unexpected(version.error());
    if (!version->rows.empty() && !version->rows.front().empty()) {
      ttl = RawTableTtlSql(version->rows.front()[0], options_.raw_retention_days);
    }
  }
  std::vector<std::string> made;
  for (const auto& t : Tables()) {
    std::string cols;
    for (const auto& c : t.columns) {
      cols += (cols.empty() ? "" : ", ") + std::string(c.name) + " " + std::string(ClickHouseType(c.type));
    }
    cols += ", " + std::string(kRowIndexColumn) + " Int64";
    // A row is (job_key, row_index): the same rows inserted again replace themselves. One day per
    // partition: old rows leave a partition at a time (PruneRawRows).
    PLASMIENT_TRY(Execute(fmt::format(
        "CREATE TABLE IF NOT EXISTS {}.{} ({}) ENGINE = ReplacingMergeTree() PARTITION BY intDiv(at_ns, {}) "
        "ORDER BY (job_key, {}){}",
        options_.database, LocalName(t.id), cols, kRawPartitionNs, kRowIndexColumn, ttl)));
    made.push_back(LocalName(t.id));
    if (options_.cluster.empty() || local_only) continue;
    std::string shard_db = options_.shard_database == "-" ? "''" : options_.shard_database;
    PLASMIENT_TRY(
        Execute(fmt::format("CREATE TABLE IF NOT EXISTS {} ({}) ENGINE = Distributed({}, {}, {}, "
                            "sipHash64(job_key))",
                            QualifiedName(t.id), cols, options_.cluster, shard_db, LocalName(t.id))));
    made.emplace_back(Table(t.id).name);
  }
  PLASMIENT_TRY(CheckRowIdentity(made));
  return EnsureRollups(local_only);
}

// Each rollup beside its raw table: the table, the view that fills it from every inserted block,
// and, with a cluster, the Distributed table that reads every shard's. The view is made before
// the one-off fill from the rows already there, so no insert falls between the two; an insert
// that lands while the fill runs is counted by both (docs/fleet.md, "Rollups": migrate with the
// writers stopped).
Status ClickHouseStore::EnsureRollups(bool local_only) {
  for (const auto& r : Rollups()) {
    const std::string local = options_.database + "." + RollupLocalName(r.id);
    const std::string source = options_.database + "." + LocalName(r.source);
    auto exists = Query("EXISTS TABLE " + local);
    if (!exists) return std::unexpected(exists.error());
    const bool fresh =
        !exists->rows.empty() && !exists->rows.front().empty() && exists->rows.front()[0] == "0";
    const std::string columns = RollupColumnsSql(r);
    PLASMIENT_TRY(Execute(
        fmt::format("CREATE TABLE IF NOT EXISTS {} ({}) ENGINE = {}", local, columns, RollupEngineSql(r))));
    PLASMIENT_TRY(Execute("CREATE MATERIALIZED VIEW IF NOT EXISTS " + options_.database + "." +
                          std::string(r.name) + "_mv TO " + local + " AS " + RollupSelectSql(r, source)));
    if (fresh) {
      PLASMIENT_TRY(Execute("INSERT INTO " + local + " " + RollupSelectSql(r, source + " FINAL")));
    }
    if (options_.cluster.empty() || local_only) continue;
    std::string shard_db = options_.shard_database == "-" ? "''" : options_.shard_database;
    PLASMIENT_TRY(Execute(
        fmt::format("CREATE TABLE IF NOT EXISTS {}.{} ({}) ENGINE = Distributed({}, {}, {})",
                    options_.database, r.name, columns, options_.cluster, shard_db, RollupLocalName(r.id))));
  }
  return Ok();
}

Result<std::size_t> ClickHouseStore::PruneRawRows(std::int64_t cutoff_ns) {
  const std::int64_t cutoff_day = cutoff_ns / kRawPartitionNs;  // days wholly before the cutoff
  const std::string db = QuoteClickHouseString(options_.database);
  std::size_t dropped = 0;
  for (const auto& t : Tables()) {
    const std::string table = LocalName(t.id), quoted = QuoteClickHouseString(table);
    auto key = Query(
        fmt::format("SELECT partition_key FROM system.tables WHERE database = {} AND name = {}", db, quoted));
    if (!key) return std::unexpected(key.error());
    if (key->rows.empty() || key->rows.front().empty()) continue;  // not made in this database
    const std::string qualified = options_.database + "." + table;
    if (key->rows.front()[0].find("intDiv(at_ns") == std::string::npos) {  // made before partitions
      PLASMIENT_TRY(Execute(
          fmt::format("ALTER TABLE {} DELETE WHERE at_ns < {}", qualified, cutoff_day * kRawPartitionNs)));
      continue;
    }
    auto parts = Query(fmt::format(
        "SELECT DISTINCT partition FROM system.parts WHERE active AND database = {} AND table = {}", db,
        quoted));
    if (!parts) return std::unexpected(parts.error());
    for (const auto& row : parts->rows) {
      auto day = row.empty() ? std::nullopt : ParseInt(row[0]);
      if (!day || *day >= cutoff_day) continue;
      PLASMIENT_TRY(Execute(fmt::format("ALTER TABLE {} DROP PARTITION {}", qualified, *day)));
      ++dropped;
    }
  }
  return dropped;
}

// Removes from `keys` those the table already holds.
Status ClickHouseStore::DropPresentKeys(TableId table, const std::vector<Row>& rows,
                                        std::set<std::string, std::less<>>& keys) {
  std::int64_t first_ns = std::numeric_limits<std::int64_t>::max(),
               last_ns = std::numeric_limits<std::int64_t>::min();
  for (const auto& r : rows) {
    first_ns = std::min(first_ns, std::get<std::int64_t>(r[kAtNsColumn]));
    last_ns = std::max(last_ns, std::get<std::int64_t>(r[kAtNsColumn]));
  }
  std::string in;
  for (const auto& k : keys) {
    if (!in.empty()) in += ',';
    in += QuoteClickHouseString(k);
  }
  // A job_key's rows all carry its at_ns: the batch's time range leaves out every part (and day
  // partition) that cannot hold them, so the check costs the same on a month of rows as on a day.
  auto present = Query(
      fmt::format("SELECT DISTINCT job_key FROM {} WHERE at_ns >= {} AND at_ns <= {} AND job_key IN ({})",
                  QualifiedName(table), first_ns, last_ns, in));
  if (!present) return std::unexpected(present.error());
  for (const auto& row : present->rows) {
    if (!row.empty()) keys.erase(row[0]);
  }
  return Ok();
}

Result<std::size_t> ClickHouseStore::Insert(const Batch& batch, Sent sent) {
  std::size_t inserted = 0;
  for (const auto& t : Tables()) {
    const auto& rows = batch[t.id];
    if (rows.empty()) continue;
    std::set<std::string, std::less<>> keys;  // to send, when some may be there already
    if (sent == Sent::kMaybe) {
      for (const auto& r : rows) keys.insert(std::get<std::string>(r[kJobKeyColumn]));
      PLASMIENT_TRY(DropPresentKeys(t.id, rows, keys));
    }
    std::string body;
    std::size_t n = 0;
    // Each job_key's next row_index. A table's rows of one analysis are adjacent (Batch::Append
    // keeps them so), so most rows count on the previous row's key without a lookup.
    std::unordered_map<std::string_view, std::int64_t> next_index;
    std::string_view key_before;
    std::int64_t* next = nullptr;
    for (const auto& r : rows) {
      const std::string_view key = std::get<std::string>(r[kJobKeyColumn]);
      if (next == nullptr || key != key_before) {
        next = &next_index[key];  // a node's value stays where it is as the map grows
        key_before = key;
      }
      std::int64_t index = (*next)++;
      if (sent == Sent::kMaybe && !keys.contains(key)) continue;
      for (const auto& cell : r) AppendRowBinaryCell(body, cell);
      AppendRowBinaryCell(body, index);
      ++n;
    }
    if (n == 0) continue;
    std::string columns;
    for (const auto& c : t.columns) columns += std::string(c.name) + ", ";
    std::string q = "INSERT INTO " + QualifiedName(t.id) + " (" + columns + std::string(kRowIndexColumn) +
                    ") FORMAT RowBinary";
    // One INSERT is one block, so the rollups' views see all of a job's rows of the table at once
    // (clickhouse_rollups.cc, "analyses").
    std::string params = "query=" + UrlEncode(q) +
                         "&max_insert_block_size=" + std::to_string(std::max<std::size_t>(n, 1 << 20));
    if (!options_.cluster.empty()) params += "&insert_distributed_sync=1";
    auto r = Post(params, body);
    if (!r) return std::unexpected(r.error());
    inserted += n;
  }
  return inserted;
}

namespace {

// One TabSeparated line into its cells, unescaped.
void SplitTsvLine(std::string_view line, std::vector<std::string>& cells) {
  cells.clear();
  std::size_t pos = 0;
  while (true) {
    auto tab = line.find('\t', pos);
    std::string_view f = line.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos);
    std::string& cell = cells.emplace_back();
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (f[i] == '\\' && i + 1 < f.size()) {
        char n = f[++i];
        cell += n == 't' ? '\t' : n == 'n' ? '\n' : n;
      } else {
        cell += f[i];
      }
    }
    if (tab == std::string_view::npos) break;
    pos = tab + 1;
  }
}

}  // namespace

Result<QueryResult> ClickHouseStore::Query(const SqlQuery& query) {
  auto sql = BindClickHouseParams(query);
  if (!sql) return std::unexpected(sql.error());
  auto body = Post("", *sql + " FORMAT TabSeparatedWithNames");
  if (!body) return std::unexpected(body.error());
  QueryResult out;
  std::string_view text = *body;
  bool header = true;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    std::vector<std::string> cells;
    SplitTsvLine(line, cells);
    if (header) {
      out.columns = std::move(cells);
      header = false;
    } else {
      out.rows.push_back(std::move(cells));
    }
  }
  return out;
}

// A GET (ClickHouse runs it read-only) whose answer is parsed line by line as it arrives.
Status ClickHouseStore::ForEachRow(const SqlQuery& query, const RowVisitor& visit) {
  auto sql = BindClickHouseParams(query);
  if (!sql) return std::unexpected(sql.error());
  int status = 0;
  std::string pending, error;
  std::vector<std::string> cells;
  Status failed = Ok();
  auto take_line = [&](std::string_view line) {
    SplitTsvLine(line, cells);
    failed = visit(cells);
    return failed.has_value();
  };
  auto res = client_->Get(
      ("/?query=" + UrlEncode(*sql + " FORMAT TabSeparated")).c_str(), httplib::Headers{},
      [&](const httplib::Response& r) {
        status = r.status;
        return true;
      },
      [&](const char* data, std::size_t n) {
        if (status != 200) {
          error.append(data, std::min<std::size_t>(n, 400 - std::min<std::size_t>(error.size(), 400)));
          return true;
        }
        pending.append(data, n);
        std::size_t start = 0;
        for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n', start)) {
          if (!take_line(std::string_view(pending).substr(start, nl - start))) return false;
          start = nl + 1;
        }
        pending.erase(0, start);
        return true;
      });
  if (!failed) return failed;
  if (!res) return Fail("{}: ClickHouse unreachable ({})", options_.url, httplib::to_string(res.error()));
  if (status != 200) {
    while (!error.empty() && (error.back() == '\n' || error.back() == ' ')) error.pop_back();
    return Fail("{}: ClickHouse answered {}: {}", options_.url, status, error);
  }
  if (!pending.empty() && !take_line(pending)) return failed;
  return Ok();
}

}  // namespace plasmient::store
