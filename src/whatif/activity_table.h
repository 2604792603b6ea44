// The what-if stage reads the ranks' activity tables the verdict keeps (verdict/activity_table.h,
// RankVerdict::activities); these are its names for them.
#pragma once

#include "verdict/activity_table.h"

namespace plasmient::whatif {

using ActivityRow = verdict::ActivityRow;
using HostWait = verdict::HostWait;
using RankTable = verdict::ActivityTable;

}  // namespace plasmient::whatif
