#include "export/html_icicle_zoom.h"

#include <string_view>

#include <fmt/format.h>

namespace plasmient::exporting {
namespace {

// Runs once, where it stands: after the <svg id="icicle"> and the #icicle-crumbs it drives.
// A box's parent is the drawn box one row up whose path, followed by '/', begins its own (a
// "more" box names its parent in data-parent). Zoomed at z, z and its ancestors span the full
// width, z's descendants are laid out in document order — each at its parent's cursor, as wide
// as its GPU time over z's — exactly as the page lays out the whole tree, and every other box
// is hidden. Unzoomed, every box gets back the geometry and label the page was written with.
constexpr std::string_view kBody = R"js(
var svg = document.getElementById('icicle'), crumbs = document.getElementById('icicle-crumbs');
if (!svg || !crumbs) return;
var W = svg.viewBox.baseVal.width, hint = crumbs.textContent, boxes = [], byPath = new Map(), byG = new Map();
svg.querySelectorAll('g.box').forEach(function (g) {
  var r = g.querySelector('rect'), t = g.querySelector('text');
  var b = {g: g, r: r, t: t, x: r.getAttribute('x'), w: r.getAttribute('width'),
           tx: t ? t.getAttribute('x') : null, text: t ? t.textContent : '',
           s: Number(g.getAttribute('data-gpu-time-s')), row: Math.round(Number(r.getAttribute('y')) / G.row),
           path: g.getAttribute('data-path'), parent: g.getAttribute('data-parent'), up: null};
  boxes.push(b);
  byG.set(g, b);
  if (b.path !== null) byPath.set(b.path, b);
});
boxes.forEach(function (b) {
  if (b.path === null) { b.up = b.parent ? byPath.get(b.parent) || null : null; return; }
  for (var i = b.path.lastIndexOf('/'); i > 0; i = b.path.lastIndexOf('/', i - 1)) {
    var up = byPath.get(b.path.slice(0, i));
    if (up && up.row === b.row - 1) { b.up = up; return; }
  }
});
function under(b, z) { for (var a = b; a; a = a.up) if (a === z) return true; return false; }
// The label that fits: "name · pct", else the name, else its tail ("…Layer_17").
function label(b, w) {
  var name = b.t.getAttribute('data-label'), full = name + ' · ' + b.t.getAttribute('data-pct');
  var fit = Math.max(0, Math.floor((w - 8) / G.ch));
  if (w < G.minLabel) return '';
  if (full.length <= fit) return full;
  if (name.length <= fit) return name;
  return fit < 4 ? '' : '…' + name.slice(name.length - (fit - 1));
}
function place(b, x, w) {
  b.r.setAttribute('x', x.toFixed(2));
  b.r.setAttribute('width', Math.max(w, 0.5).toFixed(2));
  if (b.t) { b.t.setAttribute('x', (x + G.pad).toFixed(1)); b.t.textContent = label(b, w); }
  b.g.style.display = '';
}
function params() { return new URLSearchParams(location.hash.slice(1)); }
function href(b) {
  var p = params();
  if (b) p.set('zoom', b.path); else p.delete('zoom');
  return '#' + p.toString();
}
function link(text, b) {
  var a = document.createElement('a');
  a.href = href(b);
  a.textContent = text;
  return a;
}
function apply() {
  var path = params().get('zoom'), z = path === null ? null : byPath.get(path) || null;
  if (!z) {
    boxes.forEach(function (b) {
      b.r.setAttribute('x', b.x);
      b.r.setAttribute('width', b.w);
      if (b.t) { b.t.setAttribute('x', b.tx); b.t.textContent = b.text; }
      b.g.style.display = '';
    });
    svg.removeAttribute('data-zoom');
    crumbs.textContent = path === null ? hint : 'No box for ' + path + ' (folded or absent); ' + hint;
    return;
  }
  var k = W / z.s, cursor = new Map([[z, 0]]);
  boxes.forEach(function (b) {
    if (under(z, b)) { place(b, 0, W); return; }
    if (b === z || !under(b, z)) { b.g.style.display = 'none'; return; }
    var x = cursor.get(b.up), w = b.s * k;
    cursor.set(b.up, x + w);
    cursor.set(b, x);
    place(b, x, w);
  });
  svg.setAttribute('data-zoom', z.path);
  crumbs.textContent = 'Zoomed into ';
  var chain = [];
  for (var a = z; a; a = a.up) chain.unshift(a);
  crumbs.appendChild(link('all', null));
  chain.forEach(function (a) {
    crumbs.appendChild(document.createTextNode(' › '));
    var name = a.t ? a.t.getAttribute('data-label') : a.path;
    if (a === z) { var b = document.createElement('b'); b.textContent = name; crumbs.appendChild(b); }
    else crumbs.appendChild(link(name, a));
  });
  crumbs.appendChild(document.createTextNode(' — click a box to zoom in, its row above or Escape to zoom out.'));
}
function go(b) { location.hash = href(b).slice(1); }
svg.addEventListener('click', function (e) {
  var g = e.target.closest('g.box'), b = g && byG.get(g);
  if (!b) return;
  var zoomed = svg.getAttribute('data-zoom');
  var z = zoomed === null ? null : byPath.get(zoomed);
  // A "more" box zooms into its parent, the zoomed box out a level, any other box into itself.
  if (b.path === null) go(b.up);
  else if (b === z) go(z.up);
  else go(b);
});
document.addEventListener('keydown', function (e) {
  if (e.key === 'Escape' && svg.hasAttribute('data-zoom')) go(null);
});
window.addEventListener('hashchange', apply);
apply();
)js";

}  // namespace

std::string IcicleZoomScript(const IcicleGeometry& geometry) {
  return fmt::format(
             "<script>(function () {{\n'use strict';\nvar G = {{row: {}, ch: {}, minLabel: {}, pad: {}}};",
             geometry.row_px, geometry.char_px, geometry.min_label_px, geometry.label_pad_px) +
         std::string(kBody) + "})();</script>";
}

}  // namespace plasmient::exporting
