// What a user installs: packs the tool (`npm pack`, which builds it), installs the tarball into an empty
// folder, and prints the packages installed and their size on disk, against the goals (<= 30 packages,
// <= 15 MB). Needs the package registry for the dependencies. `npm run measure:install`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'mcp-migrate-install-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
try {
  const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }))[0];
  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), '{ "name": "empty", "private": true }\n');
  execFileSync(npm, ['install', '--no-audit', '--no-fund', join(work, packed.filename)], { cwd: project, stdio: ['ignore', 'ignore', 'inherit'] });
  const modules = join(project, 'node_modules');
  const packages = readdirSync(modules, { recursive: true }).filter((p) => /(^|[\\/])package\.json$/.test(p) && isPackageRoot(String(p)));
  const bytes = sizeOf(modules);
  const mb = bytes / 1024 / 1024;
  console.log(`tarball: ${(packed.size / 1024 / 1024).toFixed(2)} MB, ${packed.entryCount} files (unpacked ${(packed.unpackedSize / 1024 / 1024).toFixed(2)} MB)`);
  console.log(`installed: ${packages.length} packages, ${mb.toFixed(1)} MB on disk (goals: <= 30 packages, <= 15 MB): ${packages.length <= 30 && mb <= 15 ? 'met' : 'MISSED'}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** `node_modules/<name>/package.json` or `node_modules/@scope/<name>/package.json`, at any depth of nesting. */
function isPackageRoot(path) {
  const parts = path.split(/[\\/]/);
  const last = parts.lastIndexOf('node_modules');
  const rest = parts.slice(last + 1);
  if (last === -1) return rest.length === 2 || (rest.length === 3 && rest[0].startsWith('@'));
  return (rest.length === 2 && !rest[0].startsWith('@')) || (rest.length === 3 && rest[0].startsWith('@'));
}

function sizeOf(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}
