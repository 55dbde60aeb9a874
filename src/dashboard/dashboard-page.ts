import { escapeXml as esc } from '../report/format.js';
import { HTML_APP_SCRIPT, HTML_STYLE } from '../report/html-app-script.js';
import { chartPage } from '../report/html-assets.js';
import type { DashboardFrame } from './dashboard-frame.js';

/**
 * The live page's own script, after report.html's (which draws the charts of the page's JSON
 * block and leaves `window.jobstormDraw` for redraws). Each server-sent frame replaces the verdict
 * and the body and redraws the charts; the frame's run time goes into `data-elapsed-ms` and a list
 * (`window.jobstormFrames`), which the browser test reads. Plain browser JavaScript as a string:
 * this package compiles without DOM types.
 */
const DASHBOARD_SCRIPT = String.raw`
(function () {
  'use strict';
  var seen = [];
  window.jobstormFrames = seen;
  var status = document.getElementById('dash-status');
  function say(text) { status.textContent = text; }
  function elapsed(ms) { return 't+' + (ms / 1000).toFixed(0) + 's'; }
  function apply(f) {
    seen.push({ seq: f.seq, state: f.state, elapsedMs: f.elapsedMs });
    document.title = f.title;
    document.getElementById('verdict').innerHTML = f.verdict;
    var report = document.getElementById('report');
    report.innerHTML = f.body;
    report.setAttribute('data-state', f.state);
    report.setAttribute('data-elapsed-ms', String(f.elapsedMs));
    report.setAttribute('data-seq', String(f.seq));
    window.jobstormDraw(f.charts);
  }
  var done = document.getElementById('report').getAttribute('data-state') === 'done';
  if (done) { say('The run is over: this is its report.'); return; }
  var source = new EventSource('events');
  source.addEventListener('frame', function (e) {
    var f = JSON.parse(e.data);
    if (f.reload) { source.close(); location.reload(); return; }
    apply(f);
    if (f.state === 'done') {
      source.close();
      say('The run is over: this is its report, the same as report.html.');
    } else {
      say(f.state === 'waiting' ? 'Connected; the run is starting.' : 'Live: updated at ' + elapsed(f.elapsedMs) + ' of the run.');
    }
  });
  source.onerror = function () {
    say('Connection lost: the command may have exited. What is shown is the last update (' + elapsed(Number(document.getElementById('report').getAttribute('data-elapsed-ms'))) + ').');
  };
})();
`;

const DASHBOARD_STYLE = `
#dash-status { margin: 0 0 8px; }
`;

/**
 * The dashboard's page with `frame` in it: whole from the first byte, so a reload mid-run shows
 * everything measured so far before the next event comes. Its CSP is report.html's plus
 * `connect-src 'self'`, for the events.
 */
export function dashboardPage(frame: DashboardFrame): string {
  return chartPage({
    title: frame.title,
    script: `${HTML_APP_SCRIPT}\n${DASHBOARD_SCRIPT}`,
    style: `${HTML_STYLE}\n${DASHBOARD_STYLE}`,
    data: { charts: frame.charts },
    connectSelf: true,
    body: `<p id="dash-status" class="meta" role="status">${frame.state === 'done' ? 'The run is over: this is its report.' : 'Connecting…'}</p>
<div id="verdict">${frame.verdict}</div>
<div id="report" data-state="${frame.state}" data-elapsed-ms="${String(frame.elapsedMs)}" data-seq="${String(frame.seq)}">${frame.body}</div>
<noscript><p class="meta">${esc('Live updates need JavaScript; reload for the latest figures.')}</p></noscript>`,
  });
}
