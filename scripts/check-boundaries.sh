#!/usr/bin/env bash
# Fails when a stage uses a stage to its right: by a link of one of its CMake targets (the build's
# own target graph, read through CMake's file API) or by an #include in one of its files; and when a
# file under src/ that is not a test includes a test helper (a header in a `testing/` folder).
#   scripts/check-boundaries.sh [BUILD]   BUILD: a configured build folder (default: build)
# The stages, left to right, and the two that stand beside them (README, "Layout"):
#   base → model → wire → ingest → roofline → join → verdict → cluster → diagnose → job → whatif → export
#   → store → fleet → serve → cli
#   synth (generated workloads) uses base and model, and writes native files with the agent's
#   writer (collect, wire); collect (the live agent) uses base and wire; only cli uses them.
# Tests may also read with ingest what their stage wrote (collect's tests read the agent's files).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
query=$build/.cmake/api/v1/query
mkdir -p "$query"
touch "$query/codemodel-v2"
cmake -S . -B "$build" >/dev/null  # writes the file API's reply
python3 - "$build/.cmake/api/v1/reply" src <<'PY'
import glob, json, os, re, sys

reply, src = sys.argv[1:]
order = ["base", "model", "wire", "ingest", "roofline", "join", "verdict", "cluster", "diagnose", "job", "whatif", "export",
         "store", "fleet", "serve", "cli"]
allowed = {stage: set(order[:i]) for i, stage in enumerate(order)}
allowed["synth"] = {"base", "model", "wire", "collect"}
allowed["collect"] = {"base", "wire"}
allowed["cli"] |= {"synth", "collect"}
test_extra = {"ingest"} | allowed["ingest"]  # a test may read its stage's output with ingest
stages = set(allowed)
problems = []


def is_test(name):
    return re.search(r"_(test|fuzz)(\.cc)?$", name) is not None


def check(stage, other, is_test_item, what):
    if other == stage or other not in stages:
        return
    ok = allowed[stage] | (test_extra if is_test_item else set())
    if other not in ok:
        problems.append(f"{what}: {stage} uses {other}, a stage to its right")


def stage_of(rel):
    parts = rel.split("/")
    return parts[1] if len(parts) > 1 and parts[0] == "src" and parts[1] in stages else None


# Links: every target under src/ and the targets on its link line (CMake's own graph). A static
# library's dependencies are its target_link_libraries; an executable's or shared library's other
# dependencies (tests run the plasmient binary) are not links, so those are read from the link line.
index = json.load(open(sorted(glob.glob(os.path.join(reply, "index-*.json")))[-1]))
codemodel = next(o for o in index["objects"] if o["kind"] == "codemodel")
model = json.load(open(os.path.join(reply, codemodel["jsonFile"])))
config = model["configurations"][0]
targets = {t["id"]: json.load(open(os.path.join(reply, t["jsonFile"]))) for t in config["targets"]}
build_dir = model["paths"]["build"]
by_artifact = {}
for target in targets.values():
    for artifact in target.get("artifacts", []):
        by_artifact[os.path.normpath(os.path.join(build_dir, artifact["path"]))] = target


def links(target):
    if "link" not in target:
        return [targets[d["id"]] for d in target.get("dependencies", [])]
    found = []
    for fragment in target["link"].get("commandFragments", []):
        if fragment["role"] != "libraries":
            continue
        # Relative to the build folder (Ninja) or to the target's own (Makefiles).
        for base in (build_dir, os.path.join(build_dir, target["paths"]["build"])):
            path = os.path.normpath(os.path.join(base, fragment["fragment"]))
            if path in by_artifact:
                found.append(by_artifact[path])
                break
    return found


checked_links = 0
for target in targets.values():
    stage = stage_of(target["paths"]["source"])
    if stage is None:
        continue
    for other_target in links(target):
        other = stage_of(other_target["paths"]["source"])
        checked_links += 1
        check(stage, other, is_test(target["name"]),
              f"target {target['name']} ({target['paths']['source']}) links {other_target['name']}")

# Includes: every file of a stage, by the folder of each quoted include.
include = re.compile(r'^\s*#\s*include\s*"([a-z_]+)/')
# Helpers only tests use live in a `testing/` folder; nothing else under src/ may include them.
testing_include = re.compile(r'^\s*#\s*include\s*"[^"]*/testing/')
checked_files = 0
for root, _, files in os.walk(src):
    for name in files:
        if not name.endswith((".cc", ".h")):
            continue
        path = os.path.join(root, name)
        stage = stage_of(os.path.relpath(path))
        if stage is None:
            continue
        checked_files += 1
        test_file = is_test(name) or "/testing/" in path
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = include.match(line)
                if m:
                    check(stage, m.group(1), test_file, f"{path}:{number} includes {m.group(1)}/")
                if testing_include.match(line) and not test_file:
                    problems.append(f"{path}:{number}: a test helper (testing/) included outside tests")

if problems:
    print("check-boundaries: a stage uses a stage to its right, or a test helper outside tests:", file=sys.stderr)
    for p in problems:
        print("  " + p, file=sys.stderr)
    sys.exit(1)
print(f"check-boundaries: {len(stages)} stages, {checked_links} target links and {checked_files} files, all leftward")
PY
