// SPDX-License-Identifier: MIT
//
// selftest.mjs: proves that check_trace.mjs can fail. Each case is a small
// hand-made trace showing one behaviour of the DevTools trace engine that the
// chrome timeline form (docs/chrome-trace.md) must avoid or relies on. A case
// asserts what the engine actually does, so if an engine upgrade changes a
// rule, this file says which one. Run: node selftest.mjs (exit 0 = all pass).

import {checkTraceText} from './check_trace.mjs';

const M = (pid, tid, name, args) => ({name, ph: 'M', pid, tid, args});
const X = (tid, name, ts, dur, extra = {}) => ({name, ph: 'X', pid: 1, tid, ts, dur, cat: 'c', ...extra});
const wrap = evs => JSON.stringify({traceEvents: [M(1, 0, 'process_name', {name: 'P'}), ...evs]});
const thread = (r, tid) => r.threads.find(t => t.pid === 1 && t.tid === tid);

const cases = [];
const add = (name, text, check) => cases.push({name, text, check});
function expect(cond, what) {
  if (!cond) throw new Error(what);
}

add('numeric X nesting is kept', wrap([X(7, 'outer', 10, 100), X(7, 'inner', 20, 10), X(7, 'leaf', 21, 1)]), r => {
  expect(r.fatal === null, 'fatal');
  expect(thread(r, 7).max_depth === 3, `depth ${thread(r, 7).max_depth} != 3`);
  expect(r.totals.slices_in_tracks === 3 && r.totals.dropped === 0, 'slices');
  expect(r.bounds.min === 10 && r.bounds.max === 110, `bounds ${JSON.stringify(r.bounds)}`);
});

add('string ts (the exact msprof form) loses nesting',
    wrap([X(7, 'outer', '10.000', 100), X(7, 'inner', '20.000', 10)]), r => {
      expect(r.fatal === null, 'fatal');
      expect(thread(r, 7).max_depth === 1, `depth ${thread(r, 7).max_depth}, nesting not lost`);
      // the end is computed by string concatenation: "20.000" + 10 = "20.00010"
      expect(r.bounds.max === 20.0001, `bounds.max ${JSON.stringify(r.bounds.max)}`);
    });

add('B/E pairs share one stack across threads', wrap([
  {name: 'a', ph: 'B', pid: 1, tid: 1, ts: 10, cat: 'c'},
  {name: 'b', ph: 'B', pid: 1, tid: 2, ts: 15, cat: 'c'},
  {name: 'a', ph: 'E', pid: 1, tid: 1, ts: 20, cat: 'c'},
  {name: 'b', ph: 'E', pid: 1, tid: 2, ts: 30, cat: 'c'},
]), r => {
  expect(r.fatal === null, 'fatal');
  // the E of thread 1 pops thread 2's B: names differ, both end up with dur 0
  expect(thread(r, 1).last_end === 10 && thread(r, 2).last_end === 15,
         `ends ${thread(r, 1).last_end}, ${thread(r, 2).last_end}: B/E matched per thread after all?`);
});

add('the same two slices as X on two threads are fine',
    wrap([X(1, 'a', 10, 10), X(2, 'b', 15, 15)]), r => {
      expect(r.fatal === null && r.bounds.max === 30, `bounds.max ${r.bounds?.max}`);
      expect(r.totals.slices_in_tracks === 2, 'slices');
    });

add('partial overlap: the later sibling is dropped silently',
    wrap([X(7, 'a', 10, 20), X(7, 'b', 20, 20)]), r => {
      expect(r.fatal === null, 'fatal');
      expect(r.totals.dropped === 1 && r.totals.slices_in_tracks === 1, `dropped ${r.totals.dropped}`);
    });

add('a child ending exactly at its parent end nests; one starting at the end is a sibling',
    wrap([X(7, 'p', 10, 10), X(7, 'c', 15, 5), X(7, 'z', 20, 0)]), r => {
      expect(thread(r, 7).max_depth === 2 && r.totals.dropped === 0, `depth ${thread(r, 7).max_depth}`);
    });

// 0.1 + 0.2 = 0.30000000000000004 in a double: ends are computed as ts + dur,
// so a slice that starts exactly where its sibling ends can look like it
// starts inside it, and is then dropped as a partial overlap.
add('back-to-back siblings: ts + dur rounding past the next start drops the next one',
    wrap([X(7, 'a', 0.1, 0.2), X(7, 'b', 0.3, 1)]), r => {
      expect(r.totals.dropped === 1, `dropped ${r.totals.dropped}`);
    });

add('negative dur is kept (and drawn wrong)', wrap([X(7, 'neg', 50, -5), X(7, 'ok', 60, 5)]), r => {
  expect(r.fatal === null, 'fatal');
  expect(r.totals.slices_in_tracks === 2 && r.totals.dropped === 0, 'negative slice not kept');
});

add('lowercase i instants do not reach thread tracks; I does',
    wrap([X(7, 'x', 10, 5), {name: 'lo', ph: 'i', s: 't', pid: 1, tid: 7, ts: 12},
          {name: 'up', ph: 'I', s: 't', pid: 1, tid: 7, ts: 13}]), r => {
      expect(r.totals.instants_in_tracks === 1, `instants ${r.totals.instants_in_tracks}`);
      expect(thread(r, 7).entries === 2, `entries ${thread(r, 7).entries}`);
    });

add('C counters do not reach thread tracks',
    wrap([X(7, 'x', 10, 5), {name: 'freq', ph: 'C', pid: 1, tid: 7, ts: 11, args: {MHz: 1800}}]), r => {
      expect(r.fatal === null && thread(r, 7).entries === 1, 'counter in track');
    });

const flow = (ph, tid, ts, cat, id, extra = {}) => ({name: 'f', ph, pid: 1, tid, ts, cat, id, ...extra});
add('a flow binds when ts, pid, tid and cat match',
    wrap([X(1, 'host', 10, 5), X(2, 'dev', 20, 5), flow('s', 1, 10, 'c', '1'), flow('f', 2, 20, 'c', '1', {bp: 'e'})]),
    r => expect(r.flows.written === 1 && r.flows.bound === 1, `bound ${r.flows.bound}`));

add('a flow with another cat than its slices does not bind',
    wrap([X(1, 'host', 10, 5), X(2, 'dev', 20, 5), flow('s', 1, 10, 'x', '1'), flow('f', 2, 20, 'x', '1', {bp: 'e'})]),
    r => expect(r.flows.written === 1 && r.flows.bound === 0, `bound ${r.flows.bound}`));

add('a flow whose f sits inside (not at the start of) the slice does not bind, bp or not',
    wrap([X(1, 'host', 10, 5), X(2, 'dev', 20, 5), flow('s', 1, 10, 'c', '1'), flow('f', 2, 22, 'c', '1', {bp: 'e'})]),
    r => expect(r.flows.bound === 0, `bound ${r.flows.bound}`));

add('a flow whose f comes before its s in the file does not bind',
    wrap([X(1, 'host', 10, 5), X(2, 'dev', 20, 5), flow('f', 2, 20, 'c', '1', {bp: 'e'}), flow('s', 1, 10, 'c', '1')]),
    r => expect(r.flows.bound === 0, `bound ${r.flows.bound}`));

add('two slices with the same ts/pid/tid/cat: the flow binds to the first in the file', wrap([
  X(1, 'parent', 10, 50), X(1, 'child', 10, 5), X(2, 'dev', 20, 5),
  flow('s', 1, 10, 'c', '1'), flow('f', 2, 20, 'c', '1', {bp: 'e'}),
]), r => {
  expect(r.flows.bound === 1, 'bound');
  expect(r.flows.pairs[0][0].name === 'parent', `bound to ${r.flows.pairs[0][0].name}`);
});

add('ts 0 is left out of the trace bounds', wrap([X(7, 'zero', 0, 5), X(7, 'later', 10, 5)]), r => {
  expect(r.bounds.min === 10, `bounds.min ${r.bounds.min}`);
});

add('a slice named like a Chrome event (Paint) makes DevTools read Chrome args: fatal',
    wrap([X(7, 'outer', 10, 100), X(7, 'Paint', 20, 5)]), r => expect(r.fatal !== null, 'not fatal'));

add('the same name with U+200B appended loads', wrap([X(7, 'outer', 10, 100), X(7, 'Paint\u200b', 20, 5)]), r => {
  expect(r.fatal === null && r.totals.slices_in_tracks === 2, `fatal ${r.fatal}`);
});

add('a name ending in ::UMA is left out of the trace bounds',
    wrap([X(7, 'early::UMA', 5, 200), X(7, 'x', 10, 5)]), r => {
      expect(r.bounds.min === 10 && r.bounds.max === 15, `bounds ${JSON.stringify(r.bounds)}`);
    });

add('an event without name is fatal', wrap([X(7, 'x', 10, 5), {ph: 'X', pid: 1, tid: 7, ts: 20, dur: 1}]),
    r => expect(r.fatal !== null, 'not fatal'));

add('an M thread_name without args is fatal', wrap([X(7, 'x', 10, 5), {name: 'thread_name', ph: 'M', pid: 1, tid: 7}]),
    r => expect(r.fatal !== null, 'not fatal'));

add('NaN is refused', '{"traceEvents":[{"name":"x","ph":"X","pid":1,"tid":1,"ts":NaN,"dur":1}]}',
    r => expect(r.fatal !== null && r.fatal.startsWith('load'), 'not fatal'));

add('a truncated file is refused', wrap([X(7, 'x', 10, 5)]).slice(0, -10),
    r => expect(r.fatal !== null && r.fatal.startsWith('load'), 'not fatal'));

// --strict: the acceptance rules, as the C++ tests apply them.
const strictCases = [
  ['strict: a well-formed nested trace has no problems', wrap([X(7, 'o', 10, 100), X(7, 'i', 20, 10)]), 0],
  ['strict: a partial overlap is a problem', wrap([X(7, 'a', 10, 20), X(7, 'b', 20, 20)]), 1],
  ['strict: string ts is a problem', wrap([X(7, 'o', '10.000', 100)]), 1],
];
for (const [name, text, problems] of strictCases) {
  add(name, text, () => {});
  cases[cases.length - 1].strict = problems;
}

let failed = 0;
for (const c of cases) {
  let r;
  try {
    r = await checkTraceText(c.text, {detail: true, strict: c.strict !== undefined});
    c.check(r);
    if (c.strict !== undefined) expect((r.problems.length > 0) === (c.strict > 0), `problems ${JSON.stringify(r.problems)}`);
    process.stdout.write(`ok   ${c.name}\n`);
  } catch (e) {
    failed++;
    process.stdout.write(`FAIL ${c.name}: ${e.message}\n${JSON.stringify(r)}\n`);
  }
}
process.stdout.write(`${cases.length - failed}/${cases.length} engine behaviours as documented\n`);
process.exit(failed ? 1 : 0);
