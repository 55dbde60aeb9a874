import { chartPageScript } from '../report/html-assets.js';

/**
 * The script capacity.html runs. report.html's script draws time series, percentile curves and
 * histogram bins; a capacity search needs one more kind, values against the offered rate (x is a
 * rate, not a time or a bin), so this page carries its own small script in the same style: it reads
 * the chart data from the page's JSON block and draws each chart with the inlined uPlot. Kept as a
 * string of plain browser JavaScript (this package compiles without DOM types).
 */
export const CAPACITY_PAGE_SCRIPT = chartPageScript(String.raw`

  function fromZero(u, min, max) {
    return [0, max > 0 ? max * 1.08 : 1];
  }

  function padded(u, min, max) {
    if (min == null || max == null) return [0, 1];
    var pad = max > min ? (max - min) * 0.06 : Math.max(1, max * 0.1);
    return [Math.max(0, min - pad), max + pad];
  }

  /** "45s", "2m30s": run time, as report.html labels it. */
  function elapsed(sec) {
    var t = Math.round(sec), m = Math.floor(t / 60), s = t % 60;
    return m ? m + 'm' + (s ? s + 's' : '') : s + 's';
  }

  function options(c, width) {
    var steps = c.kind === 'steps';
    var first = steps
      ? { label: 'step at', value: function (u, v) { return v == null ? '--' : v + '/s'; } }
      : { label: 'run time', value: function (u, v) { return 't+' + elapsed(v); } };
    var series = [first].concat(
      c.series.map(function (s) {
        var o = { label: s.label, stroke: s.color, width: 1.5, scale: s.right ? 'r' : 'y' };
        if (steps) o.points = { show: true, size: s.pointsOnly ? 10 : 6, fill: s.pointsOnly ? s.color : '#fff' };
        else o.points = { show: false };
        if (s.pointsOnly) o.paths = function () { return null; };
        if (s.dash) o.dash = [5, 4];
        return o;
      })
    );
    // Time charts read in run time, as report.html's do: seconds since the search started.
    var timeAxis = { label: c.xLabel, incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600], values: function (u, splits) { return splits.map(elapsed); } };
    var scales = { x: steps ? { time: false, range: padded } : { time: false }, y: { range: fromZero } };
    var axes = [steps ? { label: c.xLabel } : timeAxis, { scale: 'y', label: c.yLabel }];
    if (c.series.some(function (s) { return s.right; })) {
      scales.r = { range: fromZero };
      axes.push({ scale: 'r', side: 1, label: c.rightLabel, grid: { show: false } });
    }
    return { title: c.title, width: width, height: 280, series: series, scales: scales, axes: axes };
  }

`);
