import { chartPageScript } from './html-assets.js';

/**
 * The script report.html runs: it reads the chart specs from the page's JSON block and draws each
 * with uPlot. It is plain browser JavaScript kept as a string (this package compiles without DOM
 * types), deliberately small: all numbers are prepared by chart-data.ts.
 */
export const HTML_APP_SCRIPT = chartPageScript(String.raw`

  function percentileLabel(x) {
    if (x == null) return null; // uPlot leaves minor ticks unlabelled
    if (x <= 1) return '0%';
    var q = (1 - 1 / x) * 100;
    return (q >= 99 ? parseFloat(q.toFixed(4)) : Math.round(q)) + '%';
  }

  // Ticks of time charts step by whole seconds, then whole minutes, then whole hours of the run.
  var TIME_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

  /** "45s", "2m30s", "1h5m": elapsed run time; whole minutes drop their seconds. */
  function elapsedLabel(sec) {
    var t = Math.round(sec);
    if (t < 60 && t > -60) return t + 's';
    var h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), s = t % 60;
    return (h ? h + 'h' : '') + (m || (h && s) ? m + 'm' : '') + (s ? s + 's' : '');
  }

  function wallClock(epochSec) {
    return new Date(epochSec * 1000).toISOString().slice(11, 19) + ' UTC';
  }

  /** Three significant digits, whole numbers kept whole: "13.1", "0.42", "1,024". */
  function shortNumber(v) {
    return Math.abs(v) >= 100 || Number.isInteger(v) ? Math.round(v).toLocaleString('en-US') : String(Number(v.toPrecision(3)));
  }

  function options(c, width) {
    var unit = c.yLabel === 'ms' ? ' ms' : c.yLabel.charAt(0) === '%' ? '%' : '';
    var hasRight = c.series.some(function (s) { return s.right; });
    var first = { label: c.kind === 'time' ? 'run time' : c.kind === 'percentile' ? 'percentile' : 'from' };
    if (c.kind === 'time') first.value = function (u, v) { return 't+' + elapsedLabel(v) + ' (' + wallClock(c.startSec + v) + ')'; };
    if (c.kind === 'percentile') first.value = function (u, v) { return percentileLabel(v); };
    if (c.kind === 'bars') first.value = function (u, v) { return c.xLabels[Math.round(v)] || ''; };
    var series = [first].concat(
      c.series.map(function (s) {
        var o = { label: s.label, stroke: s.color, width: s.width || 1.5, scale: s.right ? 'r' : 'y', value: function (u, v) { return shortNumber(v) + unit; } };
        if (c.kind === 'bars') {
          o.fill = s.color + '88';
          o.paths = uPlot.paths.bars({ size: [0.9, 60] });
          o.points = { show: false };
        }
        if (s.dash) o.dash = [5, 4];
        return o;
      })
    );
    var scales = { x: { time: false }, y: c.yLog ? { distr: 3 } : {} };
    var xAxis = {};
    if (c.kind === 'time') {
      xAxis.incrs = TIME_INCRS;
      xAxis.values = function (u, splits) { return splits.map(elapsedLabel); };
      xAxis.label = 'run time';
    }
    if (c.kind === 'percentile') {
      scales.x = { time: false, distr: 3 };
      xAxis.values = function (u, splits) { return splits.map(percentileLabel); };
      xAxis.label = 'percentile (log scale of 1/(1−q))';
    }
    if (c.kind === 'bars') {
      scales.x = { time: false, range: [-0.5, c.x.length - 0.5] };
      xAxis.values = function (u, splits) { return splits.map(function (i) { return c.xLabels[Math.round(i)] || ''; }); };
      xAxis.label = 'from (log-spaced bins)';
    }
    var axes = [xAxis, { scale: 'y', label: c.yLabel }];
    if (hasRight) {
      scales.r = c.rightFromZero ? { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } } : {};
      axes.push({ scale: 'r', side: 1, label: c.rightLabel, grid: { show: false } });
    }
    // uPlot's legend markers are solid squares of one width by default, so a p50 and a p99 of the
    // same colour looked alike: each marker takes its line's width and dash; dashed ones are hollow.
    var markers = {
      width: function (u, i) { return i > 0 ? Math.max(2, u.series[i].width) : 0; },
      dash: function (u, i) { return i > 0 && u.series[i].dash ? 'dashed' : 'solid'; },
      fill: function (u, i) { var s = c.series[i - 1]; return !s || s.dash ? 'transparent' : s.color + (c.kind === 'bars' ? '88' : ''); },
    };
    var opts = { title: c.title, width: width, height: 280, series: series, scales: scales, axes: axes, legend: { markers: markers } };
    if (c.bands && c.bands.length) opts.hooks = { drawClear: [function (u) { shade(u, c.bands); }] };
    if (c.marks && c.marks.length) (opts.hooks = opts.hooks || {}).draw = [function (u) { mark(u, c.marks); }];
    return opts;
  }

  /** Scale-up episodes: a light band from start to end, its label (the lag) above it. */
  function mark(u, marks) {
    var ctx = u.ctx;
    ctx.save();
    ctx.font = Math.round(11 * devicePixelRatio) + 'px system-ui, sans-serif';
    marks.forEach(function (m, i) {
      var x0 = u.valToPos(m.from, 'x', true), x1 = u.valToPos(m.to, 'x', true);
      ctx.fillStyle = 'rgba(31, 119, 180, 0.12)';
      ctx.fillRect(x0, u.bbox.top, Math.max(2, x1 - x0), u.bbox.height);
      ctx.fillStyle = '#1f4e79';
      ctx.fillText(m.label, x0 + 2, u.bbox.top + (12 + (i % 3) * 12) * devicePixelRatio);
    });
    ctx.restore();
    u.root.setAttribute('data-marks', String(marks.length));
  }

  /** Failing threshold windows, shaded red behind the lines (x in the chart's own seconds). */
  function shade(u, bands) {
    var ctx = u.ctx;
    ctx.save();
    ctx.fillStyle = 'rgba(207, 34, 46, 0.13)';
    bands.forEach(function (b) {
      var x0 = u.valToPos(b.from - 0.5, 'x', true), x1 = u.valToPos(b.to - 0.5, 'x', true);
      ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
    });
    ctx.restore();
  }

`);

export const HTML_STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 16px 24px; color: #1b1f24; }
h1 { font-size: 22px; margin: 8px 0; } h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: right; vertical-align: top; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
th { background: #f6f8fa; }
.ok { color: #1a7f37; font-weight: 600; } .fail { color: #cf222e; font-weight: 600; }
.meta { color: #57606a; }
.verdict { padding: 12px 16px; border-radius: 6px; margin: 0 0 16px; font-size: 1.1em; border: 1px solid; }
.verdict ul { margin: 6px 0 0; font-size: 0.9em; }
.verdict-passed { background: #dafbe1; border-color: #1a7f37; } .verdict-failed { background: #ffebe9; border-color: #cf222e; }
.verdict-running { background: #ddf4ff; border-color: #0969da; }
.figures { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 8px 0; }
.figure { display: flex; flex-direction: column; } .figure strong { font-size: 1.15em; font-variant-numeric: tabular-nums; }
.verdict-inconclusive { background: #fff8c5; border-color: #9a6700; } .verdict-unreachable, .verdict-interrupted { background: #eaeef2; border-color: #57606a; }
.chart { margin: 12px 0 20px; min-height: 300px; width: 100%; }
.u-legend th, .u-legend td { border: none; background: none; padding: 2px 4px; }
.u-inline.u-live th::after { content: ""; } .u-legend .u-value:empty { display: none; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 8px 24px; }
.wide { overflow-x: auto; max-width: 100%; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: 4px 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
`;
