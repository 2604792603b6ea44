#include "ingest/kineto_json/top_level_parser.h"

#include <simdjson.h>

#include "ingest/kineto_json/json_text.h"
#include "ingest/kineto_json/simdjson_memory.h"
#include "ingest/kineto_json/time_text.h"

namespace plasmient::ingest {
namespace {

namespace od = simdjson::ondemand;

bool ReadInt64(od::value v, std::int64_t* out) {
  std::string_view token = v.raw_json_token();
  if (!token.empty() && token.front() == '"') {
    std::string_view s;
    return v.get_string().get(s) == simdjson::SUCCESS && ParseInteger(s, out);
  }
  return ParseNumberAsInteger(token, out);
}

bool ReadText(od::value v, std::string* out) {
  std::string_view s;
  if (v.get_string().get(s) != simdjson::SUCCESS) return false;
  out->assign(s);
  return true;
}

bool ReadDevice(od::object obj, model::DeviceInfo* d) {
  for (auto field_result : obj) {
    od::field field;
    if (std::move(field_result).get(field) != simdjson::SUCCESS) return false;
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    od::value v = field.value();
    std::int64_t n = 0;
    if (key == "id" && ReadInt64(v, &n))
      d->id = static_cast<std::int32_t>(n);
    else if (key == "name")
      ReadText(v, &d->name);
    else if (key == "numSms" && ReadInt64(v, &n))
      d->sm_count = static_cast<std::int32_t>(n);
    else if (key == "computeMajor" && ReadInt64(v, &n))
      d->cc_major = static_cast<std::int32_t>(n);
    else if (key == "computeMinor" && ReadInt64(v, &n))
      d->cc_minor = static_cast<std::int32_t>(n);
    else if (key == "totalGlobalMem" && ReadInt64(v, &n))
      d->total_memory_bytes = n;
    else if (key == "warpSize" && ReadInt64(v, &n))
      d->warp_size = static_cast<std::int32_t>(n);
  }
  return true;
}

bool ReadDevices(od::value v, model::TraceBuilder& builder) {
  od::array devices;
  if (v.get_array().get(devices) != simdjson::SUCCESS) return false;
  for (auto element : devices) {
    od::object obj;
    if (element.get_object().get(obj) != simdjson::SUCCESS) return false;
    model::DeviceInfo d;
    if (!ReadDevice(obj, &d)) return false;
    builder.AddDevice(std::move(d));
  }
  return true;
}

bool ReadDistributed(od::value v, model::TraceInfo& info) {
  od::object obj;
  if (v.get_object().get(obj) != simdjson::SUCCESS) return false;
  for (auto field_result : obj) {
    od::field field;
    if (std::move(field_result).get(field) != simdjson::SUCCESS) return false;
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    od::value value = field.value();
    if (key == "rank") {
      ReadInt64(value, &info.rank);
    } else if (key == "world_size") {
      ReadInt64(value, &info.world_size);
    } else if (key == "backend") {
      ReadText(value, &info.backend);
    } else if (key == "pg_config") {
      std::string_view raw;
      od::array a;
      if (value.get_array().get(a) == simdjson::SUCCESS && a.raw_json().get(raw) == simdjson::SUCCESS) {
        std::string scratch;
        info.pg_config.assign(MinifyJson(raw, &scratch));
      }
    }
  }
  return true;
}

}  // namespace

TopLevelFacts ApplyTopLevel(const std::vector<TopLevelValue>& values, model::TraceBuilder& builder) {
  TopLevelFacts facts;
  od::parser parser;
  for (const TopLevelValue& tv : values) {
    WatchAllocations();
    simdjson::padded_string text(tv.text);
    ThrowIfAllocationFailed();
    od::document doc;
    od::value v;
    bool ok = IterateOrThrow(parser, text, doc) == simdjson::SUCCESS;
    // A scalar document cannot be read as a value; handle the scalar keys on the document.
    if (ok && tv.key == "baseTimeNanoseconds") {
      std::string_view token;
      std::int64_t base = 0;
      ok = doc.raw_json_token().get(token) == simdjson::SUCCESS && ParseNumberAsInteger(token, &base);
      if (ok) {
        facts.base_time_ns = base;
        facts.base_time_offset = tv.offset;
      }
    } else if (ok && (tv.key == "host_name" || tv.key == "hostname")) {
      std::string_view s;
      ok = doc.get_string().get(s) == simdjson::SUCCESS;
      if (ok) builder.info().hostname.assign(s);
    } else if (ok && tv.key == "deviceProperties") {
      ok = doc.get_value().get(v) == simdjson::SUCCESS && ReadDevices(v, builder);
    } else if (ok && tv.key == "distributedInfo") {
      ok = doc.get_value().get(v) == simdjson::SUCCESS && ReadDistributed(v, builder.info());
    }
    if (!ok) builder.quality().Add(model::Dq::kMalformedEvent);
  }
  return facts;
}

}  // namespace plasmient::ingest
