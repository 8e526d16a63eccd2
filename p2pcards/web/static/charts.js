// Small SVG charts from numbers the peer sends: horizontal bars (matches won of played),
// lines (each side's points per deal) and a form line (a square per match).

import {esc} from "./dom.js";

const COLOURS = ["#2456a4", "#c8102e", "#2a7a3a", "#b8860b", "#6a3d9a", "#555"];

/** Bars, one per row: ``rows`` = [{label, value, total}]: value of total, as a share. */
export function barChart(rows, title) {
  const h = 36;
  const width = 420;
  const track = width - 60;
  const body = rows.map((r, i) => {
    const share = r.total > 0 ? r.value / r.total : 0;
    const w = Math.max(share * track, r.value > 0 ? 2 : 0);
    const y = i * h;
    return `<text x="0" y="${y + 12}" class="label">${esc(r.label)}</text>` +
      `<rect x="0" y="${y + 17}" width="${track}" height="12" class="track"/>` +
      `<rect x="0" y="${y + 17}" width="${w.toFixed(1)}" height="12" fill="${COLOURS[0]}"/>` +
      `<text x="${track + 6}" y="${y + 28}" class="value">${r.value}/${r.total}</text>`;
  }).join("");
  return `<svg class="chart bars" viewBox="0 0 ${width} ${rows.length * h + 2}" role="img" ` +
    `aria-label="${esc(title)}">${body}</svg>`;
}

/** Lines, one per series: ``series`` = [[y or null per x]], ``labels`` their names, ``xs`` the x labels. */
export function lineChart(labels, series, xs, title) {
  const width = 420;
  const height = 180;
  const left = 36;
  const bottom = 24;
  const values = series.flat().filter((v) => v !== null && v !== undefined);
  if (!values.length) return "";
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const span = hi - lo || 1;
  const n = Math.max(xs.length, 1);
  const x = (i) => left + (n === 1 ? (width - left - 10) / 2 : (i * (width - left - 10)) / (n - 1));
  const y = (v) => 8 + (height - bottom - 8) * (1 - (v - lo) / span);
  let out = `<line x1="${left}" y1="${y(0)}" x2="${width - 10}" y2="${y(0)}" class="axis"/>` +
    `<text x="${left - 4}" y="${y(hi) + 4}" text-anchor="end" class="label">${hi}</text>` +
    `<text x="${left - 4}" y="${y(lo) + 4}" text-anchor="end" class="label">${lo}</text>`;
  xs.forEach((label, i) => {
    out += `<text x="${x(i)}" y="${height - 6}" text-anchor="middle" class="label">${esc(label)}</text>`;
  });
  series.forEach((values, s) => {
    const colour = COLOURS[s % COLOURS.length];
    const points = values.map((v, i) => (v === null || v === undefined ? null : [x(i), y(v)])).filter(Boolean);
    out += `<polyline fill="none" stroke="${colour}" stroke-width="2.5" points="${points.map((p) => p.join(",")).join(" ")}"/>`;
    out += points.map(([px, py]) => `<circle cx="${px}" cy="${py}" r="3.5" fill="${colour}"/>`).join("");
  });
  const legend = labels.map((label, s) =>
    `<span class="key"><i class="c${s % COLOURS.length}"></i>${esc(label)}</span>`).join("");
  return `<figure class="chart"><svg class="lines" viewBox="0 0 ${width} ${height}" role="img" ` +
    `aria-label="${esc(title)}">${out}</svg><figcaption>${legend}</figcaption></figure>`;
}

/** A form line: a square per match, oldest first (W won, L lost, - neither). */
export function formLine(form) {
  const cells = form.map((f, i) => {
    const cls = f === "W" ? "won" : f === "L" ? "lost" : "none";
    return `<rect x="${i * 12}" y="${f === "W" ? 0 : 6}" width="10" height="${f === "W" ? 14 : 8}" class="${cls}"/>`;
  }).join("");
  return `<svg class="form" viewBox="0 0 ${Math.max(form.length * 12, 12)} 14" aria-label="${esc(form.join(""))}">` +
    `${cells}</svg>`;
}
