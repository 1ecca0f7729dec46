#!/usr/bin/env node
// Summarises V8 .cpuprofile files (from `node --cpu-prof`): self time by function, by source file and by
// top-level area (node internals, node_modules package, dist/src/<dir>), plus inclusive time of chosen
// functions. Usage:
//   node --cpu-prof --cpu-prof-dir=.bench/prof bin/mcp-migrate.js --check --jobs 1 <tree>
//   node scripts/bench/profile-summary.mjs .bench/prof/*.cpuprofile [--top 30] [--inclusive name,name]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const files = args.filter((a) => a.endsWith('.cpuprofile'));
const top = Number(args[args.indexOf('--top') + 1]) || 25;
const inclusiveNames = args.includes('--inclusive') ? args[args.indexOf('--inclusive') + 1].split(',') : [];
// --timeline a,b: first and last sample (ms since the earliest profile start) in which each function is on the stack.
const timelineNames = args.includes('--timeline') ? args[args.indexOf('--timeline') + 1].split(',') : [];
const timeline = [];
let earliest = Infinity;
for (const file of files) earliest = Math.min(earliest, JSON.parse(readFileSync(file, 'utf8')).startTime);

const byFunction = new Map();
const byFile = new Map();
const byArea = new Map();
const inclusive = new Map();
let totalMs = 0;

function area(url) {
  if (!url) return '(native/gc/idle)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `node_modules/${nm[1]}`;
  const dist = /dist\/(src\/[^/]+|transforms)/.exec(url);
  if (dist) return `dist/${dist[1].replace(/\.js$/, '')}`;
  return url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map();
  const spans = new Map();
  let now = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    now += dt;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
    if (timelineNames.length) {
      for (let cur = profile.samples[i]; cur !== undefined; cur = parent.get(cur)) {
        const fn = nodes.get(cur).callFrame.functionName;
        if (!timelineNames.includes(fn)) continue;
        const span = spans.get(fn) ?? { first: now, last: now };
        span.last = now;
        spans.set(fn, span);
      }
    }
  }
  const label = file.split('/').pop();
  timeline.push(`${label}: span ${((profile.startTime - earliest) / 1000).toFixed(0)}–${((profile.endTime - earliest) / 1000).toFixed(0)} ms`);
  for (const [fn, span] of [...spans].sort((a, b) => a[1].first - b[1].first)) {
    timeline.push(`    ${fn.padEnd(28)} ${((span.first - earliest) / 1000).toFixed(0).padStart(6)} – ${((span.last - earliest) / 1000).toFixed(0).padStart(6)} ms`);
  }
  for (const [id, us] of selfUs) {
    const n = nodes.get(id);
    const cf = n.callFrame;
    const name = cf.functionName || '(anonymous)';
    if (name === '(idle)') continue;
    const ms = us / 1000;
    totalMs += ms;
    const fkey = `${name}  ${cf.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${cf.lineNumber + 1}`;
    byFunction.set(fkey, (byFunction.get(fkey) ?? 0) + ms);
    const file = cf.url ? cf.url.replace(/^.*\/(node_modules|dist)\//, '$1/') : `(${name})`;
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
    byArea.set(area(cf.url), (byArea.get(area(cf.url)) ?? 0) + ms);
    // Inclusive time: charge this sample to every named ancestor once.
    if (inclusiveNames.length) {
      const seen = new Set();
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
        const fn = nodes.get(cur).callFrame.functionName;
        if (inclusiveNames.includes(fn) && !seen.has(fn)) {
          seen.add(fn);
          inclusive.set(fn, (inclusive.get(fn) ?? 0) + ms);
        }
      }
    }
  }
}

const print = (title, map, n) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`  ${v.toFixed(0).padStart(7)} ms  ${((100 * v) / totalMs).toFixed(1).padStart(5)}%  ${k}`);
  }
};
console.log(`${files.length} profile(s), ${totalMs.toFixed(0)} ms of non-idle samples`);
print('self time by area', byArea, top);
print('self time by file', byFile, top);
print('self time by function', byFunction, top);
if (inclusiveNames.length) print('inclusive time', inclusive, inclusiveNames.length);
if (timelineNames.length) console.log(`\ntimeline (ms since the first profile started)\n${timeline.join('\n')}`);
