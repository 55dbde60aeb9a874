import { createHash } from 'node:crypto';
import { escapeXml } from './format.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let assets: { script: string; style: string } | undefined;

/** uPlot (MIT, © Leon Sorokin), read once and inlined whole, so a page needs nothing from the network. */
export function uplotAssets(): { script: string; style: string } {
  if (!assets) {
    const require = createRequire(import.meta.url);
    const dist = dirname(require.resolve('uplot'));
    assets = {
      script: readFileSync(join(dist, 'uPlot.iife.min.js'), 'utf8'),
      style: readFileSync(join(dist, 'uPlot.min.css'), 'utf8'),
    };
  }
  return assets;
}

/** A CSP source allowing exactly this inline script or style. */
export function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** JSON inside a script block must not be able to close it. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/**
 * uPlot's legend starts with its x series ("run time", "percentile"), which has no swatch: it is
 * the cursor's position, not a series. Hidden while the cursor is off the chart, so a legend lists
 * only what it draws; on hover it is shown as a bare readout (the value, without its label).
 */
const LEGEND_STYLE = `
.u-legend .u-series:first-child { display: none; }
.u-hovering .u-legend .u-series:first-child { display: inline-block; font-style: italic; }
.u-legend .u-series:first-child th { display: none; }
`;

export interface ChartPage {
  title: string;
  /** The page's own chart script (see `chartPageScript`); uPlot is put before it. */
  script: string;
  /** The page's own style; uPlot's is put before it. */
  style: string;
  /** Trusted, already escaped HTML of the body. */
  body: string;
  /** Handed to the script as the page's JSON block. */
  data: unknown;
  /** The page reads its own origin (the live dashboard's server-sent events); a saved report does not. */
  connectSelf?: boolean;
}

/**
 * A self-contained page with uPlot inlined, under a CSP that allows exactly its one script and one
 * style (by hash) and nothing from the network, so it works offline and from a CI artifact.
 */
export function chartPage(p: ChartPage): string {
  const assets = uplotAssets();
  const script = `${assets.script}\n${p.script}`;
  const style = `${assets.style}\n${LEGEND_STYLE}\n${p.style}`;
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    'img-src data:',
    ...(p.connectSelf ? ["connect-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeXml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeXml(p.title)}</title>
<style>${style}</style>
</head>
<body>
${p.body}
<script type="application/json" id="jobstorm-data">${scriptSafeJson(p.data)}</script>
<script>${script}</script>
</body>
</html>
`;
}

/**
 * A page's chart script: its own helpers, which must define `options(chart, width)` for uPlot, then
 * the drawing both pages share (each chart into its element, legend values on hover only, errors
 * shown in place, resized with the window). Plain browser JavaScript kept as a string (this package compiles without DOM types).
 */
export function chartPageScript(helpers: string): string {
  return String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('jobstorm-data').textContent);
  var charts = [];
${helpers}
  // uPlot's live legend shows "--" for every value while the cursor is off the chart and for gaps:
  // values belong to hover only, so an idle or missing value is left blank.
  function hoverValues(opts) {
    var timeX = !opts.scales || !opts.scales.x || opts.scales.x.time !== false;
    opts.series.forEach(function (s, i) {
      var own = s.value;
      s.value = function (u, v, si, di) {
        if (di == null || v == null) return '';
        var t = own ? own(u, v, si, di) : i === 0 && timeX ? new Date(v * 1000).toISOString().slice(11, 19) + ' UTC' : uPlot.fmtNum(v);
        return t == null || t === '--' ? '' : t;
      };
    });
    // Marks the chart while the cursor is on it, for the legend's x readout (LEGEND_STYLE).
    opts.hooks = opts.hooks || {};
    opts.hooks.setLegend = (opts.hooks.setLegend || []).concat(function (u) {
      u.root.classList.toggle('u-hovering', u.cursor.idx != null);
    });
    return opts;
  }

  // uPlot gives a y axis a fixed 50 px, so a tick as wide as "10,000" ran into the axis's label:
  // each y axis is as wide as its widest tick label, its tick and its gap.
  function fitAxes(opts) {
    (opts.axes || []).forEach(function (a, i) {
      if (i === 0 || a.size != null) return;
      a.size = function (u, values, ai, cycle) {
        var ax = u.axes[ai];
        if (cycle > 1 || !values) return ax._size || 50;
        var widest = 0;
        u.ctx.save();
        u.ctx.font = ax.font[0];
        values.forEach(function (v) { if (v != null) widest = Math.max(widest, u.ctx.measureText(String(v)).width); });
        u.ctx.restore();
        return Math.max(50, Math.ceil(widest / (window.devicePixelRatio || 1) + ax.ticks.size + ax.gap + 2));
      };
    });
    return opts;
  }

  // Draws every chart of the list into its element, replacing what was drawn: a live page redraws
  // each update through window.jobstormDraw, after its body was replaced.
  function drawAll(list) {
    charts.forEach(function (ch) { ch.plot.destroy(); });
    charts = [];
    list.forEach(function (c) {
      var el = document.getElementById('chart-' + c.id);
      if (!el) return;
      try {
        var plot = new uPlot(hoverValues(fitAxes(options(c, Math.max(320, el.clientWidth)))), [c.x].concat(c.series.map(function (s) { return s.values; })), el);
        charts.push({ plot: plot, el: el });
      } catch (err) {
        el.textContent = 'chart failed: ' + err;
        console.error('jobstorm chart ' + c.id, err);
      }
    });
  }
  drawAll(data.charts);
  window.jobstormDraw = drawAll;

  window.addEventListener('resize', function () {
    charts.forEach(function (ch) { ch.plot.setSize({ width: Math.max(320, ch.el.clientWidth), height: 280 }); });
  });
})();
`;
}
