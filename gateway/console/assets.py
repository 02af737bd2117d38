"""The console's style sheet and script, served from `/console/static/` (no build step).

The script finds the element marked `data-source` (a page's JSON twin), fetches it every
POLL_MS, writes each `[data-queue] [data-field]` cell anew, and keeps the points of the
last HISTORY_S seconds to draw two charts: messages waiting (visible + in flight) and
throughput (messages appended per second, from the logs' end offsets, so the same on
every gateway). The history starts when the page is opened.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b2430; background: #f6f7f9; }
header { display: flex; gap: 1rem; align-items: center; padding: .6rem 1.2rem;
  background: #12324a; color: #fff; }
header a.brand { color: #fff; font-weight: 600; text-decoration: none; margin-right: auto; }
header button { font: inherit; }
main { padding: 1rem 1.2rem; max-width: 72rem; }
h1 { font-size: 1.3rem; margin: .8rem 0; } h2 { font-size: 1.1rem; margin: 1.2rem 0 .5rem; }
table { border-collapse: collapse; background: #fff; min-width: 30rem; }
th, td { padding: .3rem .7rem; border-bottom: 1px solid #e1e4e8; text-align: left;
  vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.empty { color: #7a8594; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; max-width: 40rem; }
form.inline { display: inline; }
.charts { display: flex; gap: 1rem; flex-wrap: wrap; }
figure.chart { margin: 0 0 1rem; background: #fff; padding: .5rem; border: 1px solid #e1e4e8; }
figure.chart svg { width: 22rem; height: 6rem; display: block; }
figure.chart polyline { fill: none; stroke: #1f77b4; stroke-width: 1.5;
  vector-effect: non-scaling-stroke; }
.scale { color: #7a8594; font-size: 12px; }
.danger { background: #b42318; color: #fff; border: 0; padding: .4rem .8rem; }
.notice { background: #fff7e0; border: 1px solid #e6c35c; padding: .5rem .8rem; }
.error { background: #fdecea; border: 1px solid #e0a19b; padding: .5rem .8rem; }
label { display: block; margin: .5rem 0 .2rem; }
input[type=text], input[type=password] { width: 22rem; padding: .3rem; }
"""

JS = """
"use strict";
(() => {
  const POLL_MS = 2000, HISTORY_S = 300;
  const source = document.querySelector("[data-source]");
  if (!source) return;
  const url = source.dataset.source;
  const history = [];  // {t: seconds, waiting, appended}

  function ageText(s) {
    if (s === null || s === undefined) return "\\u2014";
    if (s < 60) return s.toFixed(1) + " s";
    if (s < 3600) return (s / 60).toFixed(0) + " min";
    return (s / 3600).toFixed(1) + " h";
  }

  function draw(id, points) {
    const svg = document.getElementById(id);
    if (!svg) return;
    const scale = document.querySelector('[data-scale-for="' + id + '"]');
    const max = Math.max(1, ...points.map(p => p.v));
    const now = points.length ? points[points.length - 1].t : 0;
    const coords = points.map(p =>
      (300 - (now - p.t) * 300 / HISTORY_S).toFixed(1) + "," + (78 - p.v * 76 / max).toFixed(1));
    let line = svg.querySelector("polyline");
    if (!line) {
      line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
      svg.appendChild(line);
    }
    line.setAttribute("points", coords.join(" "));
    if (scale) scale.textContent = "max " + Math.round(max) + ", last " + HISTORY_S / 60 + " min";
  }

  async function poll() {
    let data;
    try {
      const answer = await fetch(url, {credentials: "same-origin", cache: "no-store"});
      if (answer.status === 401) { window.location = "/console/login"; return; }
      if (!answer.ok) return;
      data = await answer.json();
    } catch (e) { return; }
    let waiting = 0, appended = 0;
    for (const [name, q] of Object.entries(data.queues)) {
      waiting += q.visible + q.in_flight;
      appended += q.appended;
      const row = document.querySelector('[data-queue="' + CSS.escape(name) + '"]');
      if (!row) continue;
      for (const cell of row.querySelectorAll("[data-field]")) {
        const field = cell.dataset.field;
        cell.textContent = field === "oldest_age_s" ? ageText(q[field]) : String(q[field]);
      }
    }
    const t = data.time_ms / 1000;
    history.push({t, waiting, appended});
    while (history.length && history[0].t < t - HISTORY_S) history.shift();
    draw("chart-waiting", history.map(p => ({t: p.t, v: p.waiting})));
    const rates = [];
    for (let i = 1; i < history.length; i++) {
      const dt = history[i].t - history[i - 1].t;
      if (dt > 0) rates.push({t: history[i].t,
        v: Math.max(0, history[i].appended - history[i - 1].appended) / dt});
    }
    draw("chart-throughput", rates);
    document.body.dataset.polls = String((Number(document.body.dataset.polls) || 0) + 1);
  }

  poll();
  setInterval(poll, POLL_MS);
})();
"""


async def console_css(request: Request) -> Response:
    return Response(CSS, media_type="text/css", headers={"cache-control": "max-age=300"})


async def console_js(request: Request) -> Response:
    return Response(JS, media_type="text/javascript", headers={"cache-control": "max-age=300"})
