// Developer aid for behaviour-preserving changes: what the tool proposes (a --dry-run's patch and JSON
// report, timings dropped) for every folder given, one file per folder in OUT. Take one before and one
// after a change, then `diff -r BEFORE AFTER`. Runs the built CLI (npm run build first) on a copy of each
// folder, committed to a repository of its own (as a user's tree is: a folder's own repository may ignore
// its dist/, and a build folder is scanned only when it is tracked).
//   node scripts/dev/snapshot.mjs OUT [--flags "…"] DIR...
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const out = resolve(args.shift());
let flags = [];
if (args[0] === '--flags') {
  args.shift();
  flags = args.shift().split(' ').filter(Boolean);
}
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'mcp-migrate.js');
mkdirSync(out, { recursive: true });
const drop = (value) => {
  if (Array.isArray(value)) return value.map(drop);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !/(^ms$|Ms$|time|elapsed|duration|started)/i.test(k)).map(([k, v]) => [k, drop(v)]));
};
for (const given of args) {
  const name = `${basename(dirname(resolve(given)))}-${basename(resolve(given))}`;
  const dir = join(mkdtempSync(join(tmpdir(), 'mcp-migrate-snapshot-')), basename(resolve(given)));
  cpSync(resolve(given), dir, { recursive: true, filter: (path) => basename(path) !== 'node_modules' && basename(path) !== '.git' });
  const git = (...a) => execFileSync('git', ['-c', 'user.name=snapshot', '-c', 'user.email=snapshot@localhost', ...a], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'snapshot');
  let report;
  try {
    report = execFileSync(process.execPath, [cli, '--dry-run', '--report', 'json', '--patch', join(out, `${name}.patch`), ...flags, dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  } catch (err) {
    report = err.stdout ?? '';
  }
  let text;
  try {
    text = JSON.stringify(drop(JSON.parse(report)), null, 1).split(dir).join('<dir>');
  } catch {
    text = report;
  }
  writeFileSync(join(out, `${name}.json`), text);
  rmSync(dirname(dir), { recursive: true, force: true });
}
