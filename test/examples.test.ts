// The CI and batch examples stay in step with the command line: their YAML reads (with a strict reader
// for the subset they use), the keys GitHub Actions and Sourcegraph need are there, and every flag they
// (and docs/ci-and-batch.md) pass to mcp-migrate exists in --help.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { USAGE } from '../src/cli/args.js';
import { readYaml, type YamlValue } from './fixtures/yaml-lite.js';

const ROOT = join(__dirname, '..');
const text = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
type Obj = { [key: string]: YamlValue };
const obj = (value: YamlValue | undefined): Obj => {
  expect(value !== null && typeof value === 'object' && !Array.isArray(value), `expected a mapping, got ${JSON.stringify(value)}`).toBe(true);
  return value as Obj;
};
const list = (value: YamlValue | undefined): YamlValue[] => {
  expect(Array.isArray(value), `expected a list, got ${JSON.stringify(value)}`).toBe(true);
  return value as YamlValue[];
};
const steps = (job: Obj): Obj[] => list(job.steps).map(obj);
const findStep = (all: Obj[], uses: string): Obj => {
  const step = all.find((s) => typeof s.uses === 'string' && s.uses.startsWith(`${uses}@`));
  expect(step, `a step that uses ${uses}`).toBeDefined();
  return step as Obj;
};
const runs = (all: Obj[]): string => all.map((s) => (typeof s.run === 'string' ? s.run : '')).join('\n');

/** Every `--flag` given to mcp-migrate on the command lines of `source` (npx's own flags before it excluded). */
function getMcpMigrateFlags(source: string): string[] {
  const flags: string[] = [];
  for (const match of source.matchAll(/\bmcp-migrate((?:[ \t]+[^\s|;&>`<]+)*)/g)) {
    for (const token of match[1].trim().split(/\s+/)) {
      const flag = /^(--[a-z][a-z-]*)/.exec(token)?.[1];
      if (flag !== undefined) flags.push(flag);
    }
  }
  return [...new Set(flags)];
}

describe('yaml-lite', () => {
  it('reads the subset and rejects what it does not know', () => {
    expect(readYaml('a: 1\nb:\n  - x\n  - y: "z"\n    w: [1, two]\nc: |\n  l1\n  # kept\nd: >-\n  f\n  g\n')).toEqual({
      a: 1,
      b: ['x', { y: 'z', w: [1, 'two'] }],
      c: 'l1\n# kept\n',
      d: 'f g',
    });
    expect(() => readYaml('a: 1\n  b: 2\n')).toThrow(/line 2/);
    expect(() => readYaml('a: 1\na: 2\n')).toThrow(/duplicate key "a"/);
    expect(() => readYaml('a:\n\t- b\n')).toThrow(/tab/);
    expect(() => readYaml('a: [1,\n  2]\n')).toThrow(/flow/);
  });
});

describe('examples/github-actions/mcp-migrate.yml', () => {
  const source = text('examples/github-actions/mcp-migrate.yml');
  const workflow = obj(readYaml(source));
  const job = obj(obj(workflow.jobs)['mcp-migrate']);
  const all = steps(job);

  it('runs on pull requests with the permissions it needs', () => {
    expect(obj(workflow.on)).toHaveProperty('pull_request');
    expect(obj(workflow.permissions)).toMatchObject({ contents: 'read', 'pull-requests': 'write', 'security-events': 'write' });
  });

  it('checks out the full history and sets up Node 20', () => {
    expect(obj(findStep(all, 'actions/checkout').with)['fetch-depth']).toBe(0);
    expect(obj(findStep(all, 'actions/setup-node').with)['node-version']).toBe(20);
  });

  it('checks the changed files, keeps going on exit 1 and 3, and fails at the end', () => {
    const check = all.find((s) => s.id === 'check') as Obj;
    expect(check.run).toContain('npx --yes mcp-migrate --check --changed-since "origin/$BASE_REF" --report markdown --output mcp-migrate.md .');
    expect(check.run).toContain('set +e');
    expect(check.run).toContain('exit-code=$code');
    expect(obj(check.env).BASE_REF).toBe('${{ github.base_ref }}');
    const last = all[all.length - 1];
    expect(last.if).toBe('always()');
    expect(last.run).toMatch(/^\s*1\).*exit 1/m);
    expect(last.run).toMatch(/^\s*3\).*exit 1/m);
    expect(last.run).toMatch(/^\s*0\)/m);
  });

  it('comments the Markdown report and uploads the SARIF report', () => {
    expect(runs(all)).toContain('--report sarif --output mcp-migrate.sarif');
    expect(obj(findStep(all, 'github/codeql-action/upload-sarif').with).sarif_file).toBe('mcp-migrate.sarif');
    expect(obj(findStep(all, 'actions/github-script').with).script).toContain("readFileSync('mcp-migrate.md'");
  });
});

describe('examples/batch', () => {
  it('github-matrix.yml: a matrix of repositories, mcp-migrate --yes --report json, a pull request each', () => {
    const workflow = obj(readYaml(text('examples/batch/github-matrix.yml')));
    const job = obj(obj(workflow.jobs).migrate);
    expect(list(obj(obj(job.strategy).matrix).repo).length).toBeGreaterThan(1);
    expect(obj(job.strategy)['fail-fast']).toBe(false);
    const all = steps(job);
    expect(obj(findStep(all, 'actions/checkout').with).repository).toBe('${{ matrix.repo }}');
    expect(runs(all)).toContain('npx --yes mcp-migrate --yes --report json .');
    const pr = obj(findStep(all, 'peter-evans/create-pull-request').with);
    expect(pr).toMatchObject({ path: 'repo', branch: expect.any(String), 'commit-message': expect.any(String) });
  });

  it('batch-spec.yaml: a Sourcegraph batch spec running mcp-migrate in node:20', () => {
    const spec = obj(readYaml(text('examples/batch/batch-spec.yaml')));
    expect(spec.version).toBe(2);
    expect(typeof spec.name).toBe('string');
    expect(obj(list(spec.on)[0])).toHaveProperty('repositoriesMatchingQuery');
    const first = obj(list(spec.steps)[0]);
    expect(first).toMatchObject({ run: 'npx --yes mcp-migrate --yes --report json .', container: 'node:20' });
    expect(obj(obj(first.outputs).report)).toEqual({ value: '${{ step.stdout }}', format: 'json' });
    const template = obj(spec.changesetTemplate);
    expect(template).toMatchObject({ title: expect.any(String), body: expect.any(String), branch: expect.any(String), published: false });
    expect(typeof obj(template.commit).message).toBe('string');
  });
});

describe('flags in the examples and docs/ci-and-batch.md', () => {
  it.each([
    'examples/github-actions/mcp-migrate.yml',
    'examples/batch/github-matrix.yml',
    'examples/batch/batch-spec.yaml',
    'examples/batch/run-many.sh',
    'docs/ci-and-batch.md',
  ])('%s passes mcp-migrate only flags that --help lists', (path) => {
    const flags = getMcpMigrateFlags(text(path));
    for (const flag of flags) expect(USAGE, `${path}: ${flag}`).toMatch(new RegExp(`(^|[\\s,])${flag}\\b`, 'm'));
  });

  it('finds the flags it checks', () => {
    expect(getMcpMigrateFlags('npx --yes mcp-migrate --check --changed-since "origin/$B" --report markdown . > x\nmcp-migrate --yes\n')).toEqual([
      '--check',
      '--changed-since',
      '--report',
      '--yes',
    ]);
    expect(getMcpMigrateFlags('mcp-migrate --no-such-flag')).toEqual(['--no-such-flag']);
  });
});
