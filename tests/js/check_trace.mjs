// SPDX-License-Identifier: MIT
//
// check_trace.mjs <trace.json> [--detail] [--strict]
//
// Loads a Chrome trace file the way the DevTools Performance panel does
// (whole file read as one string, JSON.parse, `traceEvents` of an object or
// the array itself, then the DevTools trace engine with all handlers and the
// default configuration) and prints one JSON report on stdout:
//
//   fatal          null, or the message of the error that made loading fail
//   events         number of trace events in the file, by_phase counts
//   threads[]      per (pid, tid) thread track: entries handed to the track,
//                  slices (X) and instants (I) that made it into the tree,
//                  dropped (entries the tree builder silently skipped),
//                  max_depth (1 = only roots), first_ts and last_end of the
//                  entries in the tree (as the engine computes ts + dur)
//   totals         x_written (X events in the file), slices_in_tracks, dropped
//   bounds         the engine's trace bounds {min, max} in the file's µs
//   flows          written (distinct flows with an `s` event), bound (flows the
//                  engine linked to at least two events); with --detail also
//                  `pairs`: the events each bound flow connects
//
// With --strict, `problems` lists every way the load differs from the file:
// dropped slices, slices missing from tracks, unbound flows, bounds other than
// the first ts / last ts + dur, depth other than the nesting on integer ns.
//
// Exit status: 0 loaded (and, with --strict, no problems), 1 fatal load error
// or a problem (report still printed), 2 usage or I/O problem. The engine is the npm package @paulirish/trace_engine pinned in
// package.json (the code DevTools' Performance panel runs). checkTraceText()
// is exported for selftest.mjs.

import fs from 'node:fs';
import {pathToFileURL} from 'node:url';

// The engine was written for a browser; one handler constructs DOMRect.
if (typeof globalThis.DOMRect === 'undefined') {
  globalThis.DOMRect = class DOMRect {
    constructor(x = 0, y = 0, width = 0, height = 0) {
      Object.assign(this, {x, y, width, height, top: y, left: x, right: x + width, bottom: y + height});
    }
  };
}

const Trace = await import('@paulirish/trace_engine');

/**
 * What a correct load must give, from the file alone: bounds of the X/I
 * events as doubles (ts, ts + dur) and the nesting depth per thread computed
 * on integer ns (start order, longer first; a slice starting at or after the
 * open one's end closes it).
 */
function expectedFromFile(events) {
  let min = Infinity, max = -Infinity;
  const perThread = new Map();
  for (const e of events) {
    if (e?.ph !== 'X' && e?.ph !== 'I') continue;
    if (typeof e.ts !== 'number') return null;  // e.g. string ts: nothing sensible to expect
    const dur = e.ph === 'X' ? (e.dur ?? 0) : 0;
    if (e.ts !== 0 && !String(e.name).endsWith('::UMA')) {
      min = Math.min(min, e.ts);
      max = Math.max(max, e.ts + dur);
    }
    const key = `${e.pid}:${e.tid}`;
    if (!perThread.has(key)) perThread.set(key, []);
    perThread.get(key).push([Math.round(e.ts * 1000), Math.round(dur * 1000)]);
  }
  const depth = new Map();
  for (const [key, list] of perThread) {
    list.sort((a, b) => (a[0] - b[0]) || (b[1] - a[1]));
    const ends = [];
    let d = 0;
    for (const [s, du] of list) {
      while (ends.length && ends[ends.length - 1] <= s) ends.pop();
      ends.push(s + du);
      d = Math.max(d, ends.length);
    }
    depth.set(key, d);
  }
  return {min, max, depth};
}

/** Checks one trace given as JSON text; returns the report described above. */
export async function checkTraceText(text, {file = null, detail = false, strict = false} = {}) {
  const report = {
    file,
    fatal: null,
    events: 0,
    by_phase: {},
    threads: [],
    totals: {x_written: 0, slices_in_tracks: 0, instants_in_tracks: 0, dropped: 0},
    bounds: null,
    flows: {written: 0, bound: 0},
  };

  let events;
  try {
    const json = JSON.parse(text);
    events = Array.isArray(json) ? json : json?.traceEvents;
    if (!Array.isArray(events)) throw new Error('no traceEvents array');
  } catch (e) {
    report.fatal = `load: ${e.message}`;
    return report;
  }

  report.events = events.length;
  const expected = strict ? expectedFromFile(events) : null;
  const writtenFlows = new Set();
  for (const e of events) {
    const ph = e?.ph;
    report.by_phase[ph] = (report.by_phase[ph] ?? 0) + 1;
    if (ph === 'X') report.totals.x_written++;
    if (ph === 's') writtenFlows.add(`${e.cat}\u0000${e.name}\u0000${e.id}`);
  }
  report.flows.written = writtenFlows.size;

  let parsed;
  try {
    const model = Trace.TraceModel.Model.createWithAllHandlers();
    await model.parse(events);
    parsed = model.parsedTrace();
    if (!parsed) throw new Error('engine returned no parsed trace');
  } catch (e) {
    report.fatal = `engine: ${e?.message ?? e}`;
    return report;
  }

  const data = parsed.data;
  const renderer = data.Renderer;
  for (const [pid, proc] of renderer.processes) {
    for (const [tid, thread] of proc.threads) {
      const t = {pid, tid, name: thread.name ?? null, entries: thread.entries.length,
                 slices: 0, instants: 0, dropped: 0, max_depth: thread.tree?.maxDepth ?? 0,
                 first_ts: null, last_end: null};
      for (const entry of thread.entries) {
        if (!renderer.entryToNode.has(entry)) {
          t.dropped++;
          continue;
        }
        const end = entry.ts + (entry.dur ?? 0);
        if (t.first_ts === null || entry.ts < t.first_ts) t.first_ts = entry.ts;
        if (t.last_end === null || end > t.last_end) t.last_end = end;
        if (entry.ph === 'X') {  // B/E pairs arrive here already turned into X
          t.slices++;
        } else if (entry.ph === 'I') {
          t.instants++;
        }
      }
      report.threads.push(t);
      report.totals.slices_in_tracks += t.slices;
      report.totals.instants_in_tracks += t.instants;
      report.totals.dropped += t.dropped;
    }
  }
  report.threads.sort((a, b) => (a.pid - b.pid) || (a.tid - b.tid));

  const bounds = data.Meta.traceBounds;
  report.bounds = {min: bounds.min, max: bounds.max};

  const flows = data.Flows.flows;
  report.flows.bound = flows.length;
  if (detail) {
    report.flows.pairs = flows.map(f => f.map(e => ({pid: e.pid, tid: e.tid, ts: e.ts, name: e.name, cat: e.cat})));
  }
  if (strict) {
    // The acceptance rules for a chrome-form file, in one list.
    const p = [];
    const t = report.totals;
    if (t.dropped) p.push(`${t.dropped} slices dropped`);
    if (t.slices_in_tracks !== t.x_written) p.push(`${t.slices_in_tracks} slices in tracks, ${t.x_written} X written`);
    if (report.flows.bound !== report.flows.written) p.push(`${report.flows.bound} of ${report.flows.written} flows bound`);
    if (!expected) {
      p.push('ts is not numeric');
    } else {
      if (Number.isFinite(expected.min) &&
          (report.bounds.min !== expected.min || report.bounds.max !== expected.max)) {
        p.push(`bounds ${report.bounds.min}..${report.bounds.max}, expected ${expected.min}..${expected.max}`);
      }
      for (const th of report.threads) {
        const want = expected.depth.get(`${th.pid}:${th.tid}`) ?? 0;
        if (th.max_depth !== want) p.push(`pid ${th.pid} tid ${th.tid}: depth ${th.max_depth}, real ${want}`);
      }
    }
    report.problems = p;
  }
  return report;
}

async function main() {
  const args = process.argv.slice(2);
  const detail = args.includes('--detail');
  const strict = args.includes('--strict');
  const files = args.filter(a => a !== '--detail' && a !== '--strict');
  if (files.length !== 1) {
    process.stderr.write('usage: node check_trace.mjs <trace.json> [--detail] [--strict]\n');
    process.exit(2);
  }
  let text;
  try {
    // DevTools reads the file into one JavaScript string; V8 caps a string at
    // ~512 MiB, which is where very large traces fail to open at all.
    text = fs.readFileSync(files[0]).toString('utf8');
  } catch (e) {
    if (e?.code === 'ERR_STRING_TOO_LONG') {
      const report = {file: files[0], fatal: `load: ${e.message}`};
      process.stdout.write(JSON.stringify(report) + '\n');
      process.exitCode = 1;
      return;
    }
    process.stderr.write(`check_trace: cannot read ${files[0]}: ${e.message}\n`);
    process.exit(2);
  }
  const report = await checkTraceText(text, {file: files[0], detail, strict});
  text = null;
  // exitCode, not exit(): exit() would cut a large report short on a pipe.
  process.stdout.write(JSON.stringify(report) + '\n');
  process.exitCode = report.fatal === null && !(report.problems?.length) ? 0 : 1;
}

// Run as a command unless imported (selftest.mjs imports checkTraceText).
if (process.argv[1] && import.meta.url === pathToFileURL(fs.realpathSync(process.argv[1])).href) {
  await main();
}
