// Click-to-zoom for the report's icicle chart (docs/layers.md): a bare inline script that reads
// the boxes the page already holds — the data-gpu-time-s of each <g>, the row of its <rect>, the
// data-label and data-pct of its <text> — and re-lays out one subtree at the chart's full width,
// the same way html_layers.cc lays out the whole tree. It carries no figures of its own: the
// boxes' data attributes stay their one source.
#pragma once

#include <string>

namespace plasmient::exporting {

// The chart's layout constants, owned by html_layers.cc and handed to the script.
struct IcicleGeometry {
  double row_px;        // a row's height: a box's row is its rect's y over this
  double char_px;       // the average width of a label glyph: how many fit in a box
  double min_label_px;  // boxes narrower than this carry no label
  double label_pad_px;  // a label's offset from its box's left edge
};

// "<script>…</script>". The zoomed path lives in the URL fragment as `zoom=<path>`, beside any
// other key there, so a zoomed view can be linked and a test can select one at load; the script
// marks the zoomed path on the <svg> as data-zoom and writes the way back into #icicle-crumbs.
std::string IcicleZoomScript(const IcicleGeometry& geometry);

}  // namespace plasmient::exporting
