#include "ingest/kineto_json/event_parser.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <simdjson.h>

#include "ingest/kineto_json/event_batch_index.h"

#include "base/step_name.h"
#include "ingest/kineto_json/json_text.h"
#include "ingest/kineto_json/simdjson_memory.h"
#include "ingest/kineto_json/time_text.h"
#include "model/module_hierarchy.h"

namespace plasmient::ingest {

namespace od = simdjson::ondemand;
using model::Dq;
using model::kNoId;

struct IdField {
  std::int64_t value = kNoId;
  bool present = false;
  bool numeric = false;
};

// What one event says, as views into the batch or the parser's string buffer.
struct EventFields {
  char ph = 0;
  std::string_view cat, name;
  IdField pid, tid;
  std::string_view ts_text, dur_text;
  bool has_ts = false, has_dur = false;
  std::int64_t device = kNoId, stream = kNoId, correlation = kNoId, external_id = kNoId, bytes = 0;
  std::string_view input_dims, input_types, concrete_inputs;
  std::int64_t sequence = kNoId, forward_thread = kNoId;
  std::string_view module_hierarchy;
  bool has_collective = false;
  std::string_view coll_name, dtype, pg_name, pg_ranks;
  std::int64_t in_nelems = -1, out_nelems = -1, group_size = -1, seq = kNoId;
};

// Compact texts by their raw text. An op's shapes and types repeat step after step, and
// minifying them was a tenth of parsing; looking one up costs a hash of a few dozen bytes.
// Bounded: emptied when full, and long texts (rarely repeated) are not kept.
class CompactTexts {
 public:
  const std::string* Find(std::string_view raw) const {
    if (raw.size() > kMaxBytes) return nullptr;
    auto it = texts_.find(raw);
    return it == texts_.end() ? nullptr : &it->second;
  }
  void Add(std::string_view raw, std::string_view compact) {
    if (raw.size() > kMaxBytes) return;
    if (texts_.size() >= kMaxTexts) texts_.clear();
    texts_.emplace(raw, compact);
  }

 private:
  static constexpr std::size_t kMaxBytes = 256;
  static constexpr std::size_t kMaxTexts = 4096;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::string, Hash, std::equal_to<>> texts_;
};

struct EventParser::Impl {
  od::parser single_parser;
  CompactTexts compact;  // compact texts of raw argument values, by raw text
  std::string single;    // one event copied with padding, for the slow path
  EventFields fields;
  // Compact copies of raw JSON argument values.
  std::string dims_text, types_text, concrete_text, ranks_text, pg_text;
  std::vector<std::pair<std::string_view, double>> counters;

  BatchRows* rows = nullptr;       // where the batch being parsed goes
  const char* text_end = nullptr;  // the end of the JSON text being parsed

  EventFields& Reset() {
    fields = EventFields{};
    counters.clear();
    return fields;
  }
  // The event's text copied out of the one-event buffer, which the next event reuses.
  void OwnFields(EventFields& ev) {
    for (std::string_view* text :
         {&ev.cat, &ev.name, &ev.input_dims, &ev.input_types, &ev.concrete_inputs, &ev.module_hierarchy,
          &ev.coll_name, &ev.dtype, &ev.pg_name, &ev.pg_ranks}) {
      *text = rows->Own(*text);
    }
    for (auto& counter : counters) counter.first = rows->Own(counter.first);
  }
};

namespace {

// The text of a key as written (escapes left in place); `text_end` bounds the JSON it is in.
std::string_view KeyOf(const char* start, const char* text_end) {
  auto n = static_cast<std::size_t>(text_end - start);
  std::size_t i = FindStringEnd(start, 0, n);
  while (i < n && start[i] == '\\') i = FindStringEnd(start, i + 2, n);
  return std::string_view(start, i);
}

// Whether the key starting at `key` (just past its opening quote) is `name` as written: its
// bytes, then the closing quote. Keys are matched this way, not by finding their end first, as
// most of an event's keys are a few bytes and known. Reading past a shorter key is safe: the
// text carries simdjson's padding.
template <std::size_t N>
bool KeyIs(const char* key, const char (&name)[N]) {
  return std::memcmp(key, name, N - 1) == 0 && key[N - 1] == '"';
}

bool ReadString(od::value& v, std::string_view* out) { return v.get_string().get(*out) == simdjson::SUCCESS; }

// An integer written as a JSON number (int or float) or a numeric string.
bool ReadInt(od::value& v, std::int64_t* out) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  if (type == od::json_type::number) {
    std::string_view token;
    token = v.raw_json_token();  // in the batch's padded text or the padded one-event copy
    return ParseShortDigitsPadded(token, out) || ParseNumberAsInteger(token, out);
  }
  if (type == od::json_type::string) {
    std::string_view s;
    return ReadString(v, &s) && ParseInteger(s, out);
  }
  return false;
}

// pid/tid: a number, a numeric string, or "stream N"; anything else is kept as non-numeric.
void ReadId(od::value& v, IdField* id) {
  id->present = true;
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return;
  std::int64_t value;
  if (type == od::json_type::number) {
    id->numeric = ReadInt(v, &value);
  } else if (type == od::json_type::string) {
    std::string_view s;
    if (!ReadString(v, &s)) return;
    if (s.starts_with("stream ")) s.remove_prefix(7);
    id->numeric = ParseInteger(s, &value);
  }
  if (id->numeric) id->value = value;
}

// The compact JSON text of a value (arrays/objects minified; a string gives its content). Text
// minified into `scratch` is copied into `rows`, as the next event reuses the scratch.
bool ReadRaw(od::value& v, std::string* scratch, CompactTexts& compact, BatchRows& rows,
             std::string_view* out) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  std::string_view raw;
  switch (type) {
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a) != simdjson::SUCCESS || a.raw_json().get(raw) != simdjson::SUCCESS)
        return false;
      break;
    }
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o) != simdjson::SUCCESS || o.raw_json().get(raw) != simdjson::SUCCESS)
        return false;
      break;
    }
    case od::json_type::string:
      return ReadString(v, out);
    default:
      raw = v.raw_json_token();
      break;
  }
  if (const std::string* known = compact.Find(raw)) {
    // The same size: nothing was taken out, the raw text is the compact one.
    *out = known->size() == raw.size() ? raw : rows.Own(*known);
    return true;
  }
  *out = MinifyJson(raw, scratch);
  compact.Add(raw, *out);
  if (out->data() != raw.data()) *out = rows.Own(*out);
  return true;
}

simdjson::error_code ReadArgs(od::object& args, EventParser::Impl& impl, EventFields& ev) {
  for (auto field_result : args) {
    if (auto e = field_result.error()) return e;
    // By reference, not copied out: copies of simdjson's field and value stall on store
    // forwarding, and they were most of this loop's time in profiles.
    od::field&& field = std::move(field_result).value_unsafe();
    const char* key = field.key().raw();
    od::value& v = field.value();
    bool used = true;
    switch (key[0]) {
      case 's':
        if (KeyIs(key, "seq"))
          ReadInt(v, &ev.seq);
        else if (KeyIs(key, "stream"))
          ReadInt(v, &ev.stream);
        else
          used = false;
        break;
      case 'S':
        if (KeyIs(key, "Seq"))
          ReadInt(v, &ev.seq);
        else if (KeyIs(key, "Sequence number"))
          ReadInt(v, &ev.sequence);
        else
          used = false;
        break;
      case 'b':
        if (KeyIs(key, "bytes"))
          ReadInt(v, &ev.bytes);
        else
          used = false;
        break;
      case 'd':
        if (KeyIs(key, "dtype"))
          ReadString(v, &ev.dtype);
        else if (KeyIs(key, "device"))
          ReadInt(v, &ev.device);
        else
          used = false;
        break;
      case 'I':
        if (KeyIs(key, "Input Dims") || KeyIs(key, "Input dims"))
          ReadRaw(v, &impl.dims_text, impl.compact, *impl.rows, &ev.input_dims);
        else if (KeyIs(key, "Input type"))
          ReadRaw(v, &impl.types_text, impl.compact, *impl.rows, &ev.input_types);
        else if (KeyIs(key, "In msg nelems"))
          ReadInt(v, &ev.in_nelems);
        else
          used = false;
        break;
      case 'G':
        if (KeyIs(key, "Group size"))
          ReadInt(v, &ev.group_size);
        else
          used = false;
        break;
      case 'c':
        if (KeyIs(key, "correlation"))
          ReadInt(v, &ev.correlation);
        else
          used = false;
        break;
      case 'E':
      case 'e':
        if (KeyIs(key, "External id") || KeyIs(key, "external id"))
          ReadInt(v, &ev.external_id);
        else
          used = false;
        break;
      case 'F':
        if (KeyIs(key, "Fwd thread id"))
          ReadInt(v, &ev.forward_thread);
        else
          used = false;
        break;
      case 'O':
        if (KeyIs(key, "Out msg nelems"))
          ReadInt(v, &ev.out_nelems);
        else
          used = false;
        break;
      case 'C':
        if (KeyIs(key, "Concrete Inputs"))
          ReadRaw(v, &impl.concrete_text, impl.compact, *impl.rows, &ev.concrete_inputs);
        else if (KeyIs(key, "Collective name"))
          ev.has_collective = ReadString(v, &ev.coll_name);
        else
          used = false;
        break;
      case 'P':
        if (KeyIs(key, "Process Group ID") && ev.pg_name.empty())
          ReadRaw(v, &impl.pg_text, impl.compact, *impl.rows, &ev.pg_name);
        else if (KeyIs(key, "Process Group Name"))
          ReadString(v, &ev.pg_name);
        else if (KeyIs(key, "Process Group Ranks"))
          ReadRaw(v, &impl.ranks_text, impl.compact, *impl.rows, &ev.pg_ranks);
        else
          used = false;
        break;
      case 'M':
        if (KeyIs(key, "Module Hierarchy"))
          ReadString(v, &ev.module_hierarchy);
        else
          used = false;
        break;
      default:
        used = false;
    }
    if (!used && (ev.ph == 'C' || ev.ph == 0)) {
      double value;
      if (v.get_double().get(value) == simdjson::SUCCESS)
        impl.counters.emplace_back(KeyOf(key, impl.text_end), value);
    }
  }
  return simdjson::SUCCESS;
}

simdjson::error_code ReadEvent(od::object& obj, EventParser::Impl& impl, EventFields& ev) {
  for (auto field_result : obj) {
    if (auto e = field_result.error()) return e;
    // By reference, not copied out: copies of simdjson's field and value stall on store
    // forwarding, and they were most of this loop's time in profiles.
    od::field&& field = std::move(field_result).value_unsafe();
    const char* key = field.key().raw();
    od::value& v = field.value();
    switch (key[0]) {
      case 'p':
        if (KeyIs(key, "ph")) {
          std::string_view ph;
          if (auto e = v.get_string().get(ph)) return e;
          ev.ph = ph.size() == 1 ? ph[0] : '?';
        } else if (KeyIs(key, "pid")) {
          ReadId(v, &ev.pid);
        }
        break;
      case 'c':
        if (KeyIs(key, "cat")) ReadString(v, &ev.cat);
        break;
      case 'n':
        if (KeyIs(key, "name")) ReadString(v, &ev.name);
        break;
      case 't':
        if (KeyIs(key, "tid")) {
          ReadId(v, &ev.tid);
        } else if (KeyIs(key, "ts")) {
          ev.ts_text = v.raw_json_token();
          ev.has_ts = true;
        }
        break;
      case 'd':
        if (KeyIs(key, "dur")) {
          ev.dur_text = v.raw_json_token();
          ev.has_dur = true;
        }
        break;
      case 'a':
        if (KeyIs(key, "args")) {
          od::object args;
          if (v.get_object().get(args) == simdjson::SUCCESS) {
            if (auto e = ReadArgs(args, impl, ev)) return e;
          }
        }
        break;
      default:
        break;
    }
  }
  return simdjson::SUCCESS;
}

enum class Category : std::uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kApi,
  kOp,
  kAnnotation,
  kPython,
  kRangeProfiler,
  kOverhead,  // the profiler's own work ("CUPTI Overhead": buffer flushes, instrumentation)
  kOther
};

Category Classify(std::string_view cat) {
  switch (cat.size()) {
    case 6:
      if (cat == "kernel" || cat == "Kernel") return Category::kKernel;
      if (cat == "cpu_op" || cat == "Memcpy" || cat == "Memset") {
        return cat[0] == 'c' ? Category::kOp : cat[3] == 'c' ? Category::kMemcpy : Category::kMemset;
      }
      break;
    case 7:
      if (cat == "Runtime") return Category::kApi;
      break;
    case 8:
      if (cat == "Operator") return Category::kOp;
      if (cat == "overhead" || cat == "Overhead") return Category::kOverhead;
      break;
    case 10:
      if (cat == "gpu_memcpy") return Category::kMemcpy;
      if (cat == "gpu_memset") return Category::kMemset;
      break;
    case 11:
      if (cat == "cuda_driver") return Category::kApi;
      break;
    case 12:
      if (cat == "cuda_runtime") return Category::kApi;
      break;
    case 15:
      if (cat == "user_annotation") return Category::kAnnotation;
      if (cat == "python_function") return Category::kPython;
      break;
    case 19:
      if (cat == "cuda_profiler_range") return Category::kRangeProfiler;
      break;
    default:
      break;
  }
  return Category::kOther;
}

// "ncclKernel_AllReduce_RING_LL_Sum_float(...)" -> "allreduce"; "ncclDevKernel_Generic" -> "".
std::string NcclKernelCollective(std::string_view name) {
  std::size_t underscore = name.find('_');
  if (underscore == std::string_view::npos) return {};
  std::string_view rest = name.substr(underscore + 1);
  rest = rest.substr(0, rest.find_first_of("_("));
  if (rest == "Generic") return {};
  std::string out(rest);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

bool ParseStep(std::string_view name, std::int64_t* step) {
  return name.starts_with(kStepRangePrefix) && ParseInteger(name.substr(kStepRangePrefix.size()), step);
}

template <typename Row>
void Put(BatchRows& rows, BatchRows::Kind kind, std::vector<Row>& table, const Row& row) {
  rows.order.emplace_back(kind, static_cast<std::uint32_t>(table.size()));
  table.push_back(row);
}

}  // namespace

void BatchRows::Clear() {
  order.clear();
  gpu.clear();
  api.clear();
  cpu.clear();
  collectives.clear();
  samples.clear();
  overhead.clear();
  quality.clear();
  min_ts_ns = kNoTime;
  for (std::size_t i = 0; i < owned_used_; ++i) owned_[i].clear();
  owned_used_ = 0;
}

std::string_view BatchRows::Own(std::string_view text) {
  if (text.empty()) return {};
  if (owned_used_ == 0 || owned_[owned_used_ - 1].capacity() - owned_[owned_used_ - 1].size() < text.size()) {
    if (owned_used_ == owned_.size()) owned_.emplace_back();
    std::string& block = owned_[owned_used_++];
    block.clear();
    block.reserve(std::max(kOwnedBlockBytes, text.size()));  // on the heap: moving `owned_` keeps it
  }
  std::string& block = owned_[owned_used_ - 1];
  std::size_t at = block.size();
  block.append(text);
  return std::string_view(block).substr(at);
}

EventParser::EventParser() : impl_(std::make_unique<Impl>()) {}
EventParser::~EventParser() = default;

void EventParser::ParseBatch(EventBatch& batch, BatchRows& out) {
  out.Clear();
  out_ = &out;
  impl_->rows = &out;
  std::size_t done = 0;
  od::array events;
  impl_->text_end = batch.json.data() + batch.json.size();
  if ((batch.indexed || batch.Index()) && batch.index->doc.get_array().get(events) == simdjson::SUCCESS) {
    for (auto element : events) {
      od::object obj;
      if (element.get_object().get(obj) != simdjson::SUCCESS) break;
      EventFields& ev = impl_->Reset();
      if (ReadEvent(obj, *impl_, ev) != simdjson::SUCCESS) break;
      offset_ = batch.offset[done];
      Emit(ev);
      if (++done == batch.events()) break;
    }
  }
  // Slow path: an event the batch could not get through is parsed alone, so one bad event
  // costs only itself.
  for (std::size_t i = done; i < batch.events(); ++i) {
    std::string_view text = batch.Event(i);
    offset_ = batch.offset[i];
    impl_->single.assign(text);
    impl_->single.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    impl_->text_end = impl_->single.data() + impl_->single.size();
    od::document one;
    od::object obj;
    EventFields& ev = impl_->Reset();
    const simdjson::error_code e = IterateOrThrow(
        impl_->single_parser,
        simdjson::padded_string_view(impl_->single.data(), impl_->single.size(), impl_->single.capacity()),
        one);
    if (e != simdjson::SUCCESS || one.get_object().get(obj) != simdjson::SUCCESS ||
        ReadEvent(obj, *impl_, ev) != simdjson::SUCCESS) {
      Count(Dq::kMalformedEvent);
      continue;
    }
    impl_->OwnFields(ev);
    Emit(ev);
  }
}

void EventParser::NoteTime(TimeNs ts_ns) {
  if (out_->min_ts_ns == kNoTime || ts_ns < out_->min_ts_ns) out_->min_ts_ns = ts_ns;
}

void EventParser::Emit(const EventFields& ev) {
  switch (ev.ph) {
    case 'X':
      EmitComplete(ev);
      return;
    case 'i':
    case 'I':
      CountUnplaced(Dq::kInstantEventsSkipped);  // most are counted unread: no first offset
      return;
    case 's':
    case 'f':
    case 't':
      CountUnplaced(Dq::kFlowEventsSkipped);  // most are counted unread: no first offset
      return;
    case 'M':
      return;  // process/thread names and sort order: nothing the verdict needs
    case 'C': {
      TimeNs ts_ns;
      if (!ev.has_ts || !ParseMicrosToNs(ev.ts_text, &ts_ns)) {
        Count(Dq::kMalformedEvent);
        return;
      }
      Count(Dq::kCounterEvents);
      auto device = static_cast<std::int32_t>(ev.pid.numeric ? ev.pid.value : 0);
      for (const auto& [metric, value] : impl_->counters) {
        Put(*out_, BatchRows::Kind::kSample, out_->samples, model::SampleRow{ts_ns, device, metric, value});
      }
      NoteTime(ts_ns);
      return;
    }
    case 'b':
    case 'e':
    case 'n':
      Count(Dq::kAsyncEventsSkipped);
      return;
    case 0:
      Count(Dq::kMalformedEvent);
      return;
    default:
      Count(Dq::kUnknownPhase);
      return;
  }
}

void EventParser::EmitComplete(const EventFields& ev) {
  TimeNs start_ns, dur_ns = 0;
  if (!ev.has_ts || !ParseMicrosToNs(ev.ts_text, &start_ns)) {
    Count(Dq::kMalformedEvent);
    return;
  }
  if (!ev.has_dur) {
    Count(Dq::kMissingDuration);
  } else if (!ParseMicrosToNs(ev.dur_text, &dur_ns)) {
    Count(Dq::kMalformedEvent);
    return;
  } else if (dur_ns < 0) {
    Count(Dq::kNegativeDuration);
    dur_ns = 0;
  }
  Category category = Classify(ev.cat);
  if (category == Category::kPython) {
    if (!ev.name.starts_with(model::kModuleRangePrefix)) {
      CountUnplaced(Dq::kPythonFunctionsSkipped);  // most are counted unread: no first offset
      return;
    }
    category = Category::kAnnotation;  // the builder makes it a module row
  }
  if (category == Category::kRangeProfiler) {
    Count(Dq::kCuptiRangeProfilerEvents);
    return;
  }
  if (category == Category::kOther) {
    Count(Dq::kUnknownCategory);
    return;
  }
  TimeNs end_ns = 0;
  if (start_ns == kNoTime || __builtin_add_overflow(start_ns, dur_ns, &end_ns)) {
    Count(Dq::kMalformedEvent);  // ts + dur beyond the 64-bit nanosecond clock
    return;
  }
  NoteTime(start_ns);
  auto id_or_count = [&](const IdField& id) -> std::int64_t {
    if (id.numeric) return id.value;
    if (id.present) Count(Dq::kNonNumericId);
    return kNoId;
  };

  switch (category) {
    case Category::kKernel:
    case Category::kMemcpy:
    case Category::kMemset: {
      model::GpuRow row;
      row.start_ns = start_ns;
      row.end_ns = end_ns;
      row.device = static_cast<std::int32_t>(ev.device != kNoId ? ev.device : id_or_count(ev.pid));
      row.stream = static_cast<std::int32_t>(ev.stream != kNoId ? ev.stream : id_or_count(ev.tid));
      row.name = ev.name;
      row.kind = category == Category::kKernel   ? model::GpuKind::kKernel
                 : category == Category::kMemcpy ? model::GpuKind::kMemcpy
                                                 : model::GpuKind::kMemset;
      row.correlation = ev.correlation;
      row.external_id = ev.external_id;
      row.bytes = category == Category::kKernel ? 0 : ev.bytes;
      Put(*out_, BatchRows::Kind::kGpu, out_->gpu, row);
      if (ev.has_collective) {
        Put(*out_, BatchRows::Kind::kCollective, out_->collectives,
            model::CollectiveRow{-1, BatchRows::kJustAdded, ev.coll_name, ev.in_nelems, ev.out_nelems,
                                 ev.dtype, static_cast<std::int32_t>(ev.group_size), ev.pg_name, ev.pg_ranks,
                                 ev.seq, -1});
      } else if (category == Category::kKernel && ev.name.starts_with("nccl")) {
        model::CollectiveRow row_c;
        row_c.gpu = BatchRows::kJustAdded;
        row_c.name = out_->Own(NcclKernelCollective(ev.name));
        Put(*out_, BatchRows::Kind::kCollective, out_->collectives, row_c);
      }
      return;
    }
    case Category::kApi: {
      model::ApiRow row;
      row.start_ns = start_ns;
      row.end_ns = end_ns;
      row.pid = id_or_count(ev.pid);
      row.tid = id_or_count(ev.tid);
      row.name = ev.name;
      row.correlation = ev.correlation;
      row.external_id = ev.external_id;
      Put(*out_, BatchRows::Kind::kApi, out_->api, row);
      return;
    }
    case Category::kOverhead: {
      // Kineto writes them on its own "CUPTI Overhead" process (pid -1, tid 0): on no thread of
      // the program's.
      const std::int64_t pid = id_or_count(ev.pid);
      const bool own = pid < 0;
      Put(*out_, BatchRows::Kind::kOverhead, out_->overhead,
          model::OverheadRow{start_ns, end_ns, own ? kNoId : pid, own ? kNoId : id_or_count(ev.tid),
                             ev.name});
      return;
    }
    case Category::kOp:
    case Category::kAnnotation: {
      model::CpuOpRow row;
      row.start_ns = start_ns;
      row.end_ns = end_ns;
      row.pid = id_or_count(ev.pid);
      row.tid = id_or_count(ev.tid);
      row.name = ev.name;
      row.kind = category == Category::kOp ? model::CpuOpKind::kOp : model::CpuOpKind::kAnnotation;
      if (ParseStep(ev.name, &row.step)) row.kind = model::CpuOpKind::kStep;
      row.external_id = ev.external_id;
      row.input_dims = ev.input_dims;
      row.input_types = ev.input_types;
      row.concrete_inputs = ev.concrete_inputs;
      row.sequence = ev.sequence;
      row.forward_thread = ev.forward_thread;
      if (!ev.module_hierarchy.empty() && category == Category::kOp) {
        if (model::ParseModuleHierarchy(ev.module_hierarchy, nullptr))
          row.module_hierarchy = ev.module_hierarchy;
        else
          Count(Dq::kMalformedModuleHierarchy);
      }
      if (ev.has_collective) {
        Put(*out_, BatchRows::Kind::kCpuOp, out_->cpu, row);
        Put(*out_, BatchRows::Kind::kCollective, out_->collectives,
            model::CollectiveRow{BatchRows::kJustAdded, -1, ev.coll_name, ev.in_nelems, ev.out_nelems,
                                 ev.dtype, static_cast<std::int32_t>(ev.group_size), ev.pg_name, ev.pg_ranks,
                                 ev.seq, -1});
      } else {
        Put(*out_, ev.name.starts_with("nccl:") ? BatchRows::Kind::kNcclCpuOp : BatchRows::Kind::kCpuOp,
            out_->cpu, row);
      }
      return;
    }
    default:
      return;
  }
}

void RowApplier::Apply(const BatchRows& rows) {
  std::int32_t last_gpu = -1, last_op = -1;
  for (auto [kind, index] : rows.order) {
    switch (kind) {
      case BatchRows::Kind::kGpu:
        last_gpu = builder_.AddGpu(rows.gpu[index]);
        break;
      case BatchRows::Kind::kApi:
        builder_.AddApi(rows.api[index]);
        break;
      case BatchRows::Kind::kCpuOp:
        last_op = builder_.AddCpuOp(rows.cpu[index]);
        break;
      case BatchRows::Kind::kNcclCpuOp:
        nccl_op_rows_.push_back(builder_.AddCpuOp(rows.cpu[index]));
        break;
      case BatchRows::Kind::kCollective: {
        model::CollectiveRow row = rows.collectives[index];
        if (row.gpu == BatchRows::kJustAdded) row.gpu = last_gpu;
        if (row.cpu_op == BatchRows::kJustAdded) {
          row.cpu_op = last_op;
          collectives_from_args_ = true;
        }
        builder_.AddCollective(row);
        break;
      }
      case BatchRows::Kind::kSample:
        builder_.AddSample(rows.samples[index]);
        break;
      case BatchRows::Kind::kOverhead:
        builder_.AddOverhead(rows.overhead[index]);
        break;
    }
  }
  for (auto [id, offset] : rows.quality) {
    if (offset < 0)
      builder_.quality().Add(id);
    else
      builder_.quality().AddAt(id, offset);
  }
  if (rows.min_ts_ns != kNoTime && (min_ts_ns_ == kNoTime || rows.min_ts_ns < min_ts_ns_))
    min_ts_ns_ = rows.min_ts_ns;
}

void RowApplier::Finish() {
  // nccl:* ranges describe the same collective as the record_param_comms around them; they
  // are the only collective description in traces whose record_param_comms carry no args.
  if (collectives_from_args_) return;
  for (std::int32_t op : nccl_op_rows_) {
    std::string name(builder_.trace().Str(builder_.trace().cpu.name[static_cast<std::size_t>(op)]).substr(5));
    model::CollectiveRow row;
    row.cpu_op = op;
    row.name = name;
    builder_.AddCollective(row);
  }
}

}  // namespace plasmient::ingest
