/**
 * The proof's trial holds what the servers do (src/runner/sandbox.ts): a hand-rolled server whose
 * start-up code and tool body write to every place a real one reaches — the package as the user's tree
 * knows it (an absolute path), through a relative link and a link out of the package, the user's home,
 * node_modules' cache, the temp folder — and reach for the network, is proven and migrated by `--yes`,
 * and afterwards the real tree, the folder outside it and the home hold nothing of it. A trial a killed
 * run left behind, with a server still running in it, is removed by the next run.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_NODE_MODULES, readTree, diffTrees, runCli } from './harness.js';

const TIMEOUT_MS = 120_000;
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const ESCAPES = (realPackage: string, outside: string, homeFile: string): string => `
const fs = require('node:fs');
const path = require('node:path');
function attempt(where, target) {
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, 'written by the server ' + where);
    process.stderr.write('wrote ' + where + '\\n');
  } catch (err) {
    process.stderr.write('refused ' + where + ': ' + err.code + '\\n');
  }
}
function escape(when) {
  attempt(when + ' real package', ${JSON.stringify(join(realPackage, 'escaped.txt'))});
  attempt(when + ' pwd', path.join(process.env.PWD, 'pwd-' + when + '.txt'));
  attempt(when + ' relative link', path.join(__dirname, 'data', when + '.txt'));
  attempt(when + ' link out', path.join(__dirname, 'shared', when + '.txt'));
  attempt(when + ' real home', ${JSON.stringify(homeFile)});
  attempt(when + ' outside', ${JSON.stringify(join(outside, 'direct.txt'))});
  attempt(when + ' node_modules cache', path.join(__dirname, 'node_modules', '.cache', when + '.txt'));
  attempt(when + ' tmp', path.join(require('node:os').tmpdir(), when + '.txt'));
  fetch('https://example.com/' + when).then(() => process.stderr.write('reached the network\\n'), () => process.stderr.write('no network\\n'));
}
escape('startup');
`;

const SERVER = `'use strict';
const readline = require('node:readline');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') return send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'leaky', version: '1.0.0' } } });
  if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'save', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }] } });
  if (msg.method === 'tools/call') {
    escape('tool');
    return send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'saved ' + msg.params.arguments.text }] } });
  }
  if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`;

describe('the proof runs the servers in a trial', () => {
  it('writes land in the trial and the network is not reached; the real tree, the folder outside and the home are as before', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mcp-migrate-sandbox-e2e-'));
    dirs.push(root);
    const pkg = join(root, 'pkg');
    const outside = join(root, 'outside');
    mkdirSync(join(pkg, 'store'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'config.json'), '{}\n');
    symlinkSync('store', join(pkg, 'data'));
    symlinkSync(outside, join(pkg, 'shared'));
    // a node_modules of the user's own, with a cache folder in it
    mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
    for (const name of readdirSync(PROJECT_NODE_MODULES)) if (!name.startsWith('.')) symlinkSync(join(PROJECT_NODE_MODULES, name), join(root, 'node_modules', name));
    const homeFile = join(homedir(), `.mcp-migrate-sandbox-${process.pid}-${Date.now()}.txt`);
    writeFileSync(join(pkg, 'package.json'), '{\n  "name": "leaky",\n  "version": "1.0.0"\n}\n');
    writeFileSync(join(pkg, 'server.js'), ESCAPES(pkg, outside, homeFile) + SERVER);
    const before = await readTree(root);

    const run = await runCli(['--yes', '--force', pkg], pkg);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/same +server\.js: answers like the original/);
    const after = await readTree(root);
    // only the migration itself changed the tree: the server, the manifest, the boundary or nothing else
    expect(diffTrees(before, after).filter((path) => !/^pkg\/(server\.js|package\.json|mcp-boundary\.js)$/.test(path))).toEqual([]);
    expect(existsSync(homeFile)).toBe(false);
    expect(readdirSync(outside)).toEqual(['config.json']);
    expect(readdirSync(join(root, 'node_modules', '.cache'))).toEqual([]);
  }, TIMEOUT_MS);

  it('the next run removes the trial a killed run left, and stops the server still running in it', async () => {
    const trial = await mkdtemp(join(tmpdir(), 'mcp-migrate-verify-'));
    // an owner that no longer runs
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => gone.on('exit', resolve));
    writeFileSync(join(trial, '.mcp-migrate-owner.json'), JSON.stringify({ pid: gone.pid, host: (await import('node:os')).hostname(), started: 0 }));
    const server = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { env: { ...process.env, MCP_MIGRATE_TRIAL: trial }, stdio: 'ignore' });
    const exited = new Promise((resolve) => server.on('exit', resolve));
    const { removeStaleTrials } = await import('../../src/runner/sandbox.js');
    expect(await removeStaleTrials()).toBeGreaterThanOrEqual(1);
    expect(existsSync(trial)).toBe(false);
    await expect(exited).resolves.not.toBeUndefined();
  }, TIMEOUT_MS);
});
