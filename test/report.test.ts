// The json and markdown reports, rendered from a RunSummary built from real audit results.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../src/audit/index.js';
import { renderReport } from '../src/cli/report/index.js';
import type { JsonReport } from '../src/cli/report/json.js';
import { codeSpan, escapeText } from '../src/cli/report/markdown.js';
import type { FileResult, RunSummary } from '../src/model/types.js';
import { buildFixtureSummary, FIXTURE_ROOT } from './fixtures/audit/run-summary.js';

const REPO = join(import.meta.dirname, '..');
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** The JSON Schema documented in docs/reports.md, between its markers. */
function loadDocumentedSchema(): object {
  const doc = readFileSync(join(REPO, 'docs/reports.md'), 'utf8');
  const block = /<!-- report-schema:begin -->\s*```json\n([\s\S]*?)```\s*<!-- report-schema:end -->/.exec(doc);
  if (!block) throw new Error('no report schema block in docs/reports.md');
  return JSON.parse(block[1]!) as object;
}

const validateReport = new Ajv({ allErrors: true, strict: true }).compile(loadDocumentedSchema());

function json(summary: RunSummary): JsonReport {
  const text = renderReport('json', summary);
  expect(text.endsWith('}\n')).toBe(true);
  return JSON.parse(text) as JsonReport;
}

describe('json report', () => {
  it('validates against the schema documented in docs/reports.md', () => {
    const proven: RunSummary = { ...buildFixtureSummary('check'), proofs: { 'corpus/06-console-log-noise/server.js': { status: 'same', detail: '19 requests compared', seconds: 2.4 }, 'corpus/08-no-jsonrpc-field/main.js': { status: 'not-run', detail: null, seconds: null } } };
    for (const summary of [buildFixtureSummary('check'), buildFixtureSummary('apply', ['corpus/06-console-log-noise/server.js']), proven]) {
      const report = json(summary);
      expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    }
  });

  it('the documented schema rejects what it should (a missing key, an unknown status, an extra key)', () => {
    const report = json(buildFixtureSummary());
    const missing = structuredClone(report) as unknown as { files: Record<string, unknown>[] };
    delete missing.files[0]!.package;
    expect(validateReport(missing)).toBe(false);
    const badStatus = structuredClone(report) as unknown as { files: { status: string }[] };
    badStatus.files[0]!.status = 'done';
    expect(validateReport(badStatus)).toBe(false);
    expect(validateReport({ ...report, extra: true })).toBe(false);
    const badProof = structuredClone(report) as unknown as { files: { proof: unknown }[] };
    badProof.files[0]!.proof = { status: 'proven', detail: null, seconds: null };
    expect(validateReport(badProof)).toBe(false);
  });

  it('carries what the proof said of each file, null for a file it has nothing on', () => {
    const report = json({ ...buildFixtureSummary('check'), proofs: { 'corpus/06-console-log-noise/server.js': { status: 'differs', detail: 'tools/list: the tools differ', seconds: 3.1 } } });
    expect(report.files.map((f) => [f.path, f.proof?.status ?? null])).toEqual(report.files.map((f) => [f.path, f.path === 'corpus/06-console-log-noise/server.js' ? 'differs' : null]));
    expect(report.files.find((f) => f.path === 'corpus/06-console-log-noise/server.js')!.proof).toEqual({ status: 'differs', detail: 'tools/list: the tools differ', seconds: 3.1 });
  });

  it('carries the run: schema version, tool, mode, exit code, root, totals', () => {
    const report = json(buildFixtureSummary());
    expect(report).toMatchObject({ schemaVersion: 1, tool: { name: 'mcp-migrate', version: PACKAGE_VERSION }, mode: 'check', exitCode: 3, root: FIXTURE_ROOT });
    // 06: 12 findings, 08: 10, 11: 2 (all fixed by their rewrites); sdk-bypass.mjs: 3, left alone (not fixed).
    expect(report.totals).toEqual({
      files: 6,
      pending: 3,
      written: 0,
      sdk: 2,
      boundary: 0,
      envelope: 1,
      leave: 2,
      errors: 1,
      findings: 27,
      findingsFixed: 24,
      byRule: {
        'missing-jsonrpc': 8,
        'wrong-id': 5,
        'nonstandard-error': 1,
        'reply-to-notification': 4,
        'parse-error-unanswered': 2,
        'unknown-method-unanswered': 0,
        'stdout-pollution': 4,
        'sdk-transport-bypassed': 3,
      },
    });
    expect(Object.keys(report.totals.byRule)).toEqual(RULE_IDS);
  });

  it('describes each file: package, status, normalised decision, findings with severity and fixed', () => {
    const report = json(buildFixtureSummary());
    const byPath = new Map(report.files.map((f) => [f.path, f]));
    const inventory = byPath.get('corpus/06-console-log-noise/server.js')!;
    expect(inventory).toMatchObject({
      package: 'corpus/06-console-log-noise',
      status: 'pending',
      decision: { kind: 'sdk', reason: null, hint: null, line: null, sdk: 'v1', style: 'server', notes: [expect.any(String)] },
      detected: expect.stringContaining('console.log writer'),
      fixes: ['answers ping', 'no reply to notifications', 'echoes the request id exactly'],
      error: null,
      companions: [],
    });
    expect(inventory.findings[4]).toEqual({
      rule: 'wrong-id',
      severity: 'error',
      line: 78,
      column: 11,
      message: expect.stringContaining('`msg.id || null`'),
      hint: expect.stringContaining('Echo the request id'),
      file: null,
      fixed: true,
    });
    expect(byPath.get('corpus/11-content-length-framing/server.js')).toMatchObject({
      package: null,
      decision: { kind: 'envelope', reason: 'CONTENT_LENGTH_FRAMING', line: 45, sdk: null, notes: [] },
      companions: ['corpus/11-content-length-framing/mcp-envelope.js'],
      diagnostics: [{ code: 'UTF16_LENGTH', line: 62, column: 5 }],
    });
    expect(byPath.get('rules/sdk-bypass.mjs')!.findings.map((f) => [f.rule, f.fixed])).toEqual([
      ['sdk-transport-bypassed', false],
      ['sdk-transport-bypassed', false],
      ['sdk-transport-bypassed', false],
    ]);
    expect(byPath.get('broken/server.js')).toMatchObject({ status: 'error', error: expect.stringContaining('Unexpected token'), decision: { kind: 'none' } });
    expect(report.manifests[0]).toEqual({
      path: 'corpus/06-console-log-noise/package.json',
      package: 'corpus/06-console-log-noise',
      added: { '@modelcontextprotocol/sdk': '^1.32.2', zod: '^3.25.0' },
      installCommand: 'npm install',
      written: false,
      patch: expect.stringContaining('\n+{}\n'),
    });
    expect(report.manifests[0]!.patch.startsWith('diff --git a/corpus/06-console-log-noise/package.json b/corpus/06-console-log-noise/package.json\n')).toBe(true);
  });

  it("carries each file's change as a git patch, the envelope helper with the first file that lists it", () => {
    const report = json(buildFixtureSummary());
    const byPath = new Map(report.files.map((f) => [f.path, f]));
    const inventory = byPath.get('corpus/06-console-log-noise/server.js')!;
    expect(inventory.patch).toMatch(/^diff --git a\/corpus\/06-console-log-noise\/server\.js b\/corpus\/06-console-log-noise\/server\.js\n--- a\/[^\n]+\n\+\+\+ b\/[^\n]+\n@@ /);
    expect(inventory.patch).toContain('\n+// migrated\n');
    expect(inventory.patch).toContain('\n-// Warehouse inventory MCP server.\n');
    const framing = byPath.get('corpus/11-content-length-framing/server.js')!;
    expect(framing.patch).toContain('diff --git a/corpus/11-content-length-framing/mcp-envelope.js b/corpus/11-content-length-framing/mcp-envelope.js\nnew file mode 100644\n--- /dev/null\n+++ b/corpus/11-content-length-framing/mcp-envelope.js\n@@ -0,0 +1 @@\n+// helper\n');
    expect(byPath.get('broken/server.js')!.patch).toBeNull();
    expect(byPath.get('rules/sdk-bypass.mjs')!.patch).toBeNull(); // left alone
  });

  it('marks what an apply run wrote', () => {
    const report = json(buildFixtureSummary('apply', ['corpus/06-console-log-noise/server.js', 'corpus/06-console-log-noise/package.json']));
    expect(report.totals).toMatchObject({ pending: 2, written: 1 });
    expect(report.files.find((f) => f.path.startsWith('corpus/06'))!.status).toBe('written');
    expect(report.manifests.map((m) => m.written)).toEqual([true, false]);
  });
});

const md = new MarkdownIt();

/** The rows of the first table after the heading for `path`, as arrays of cell HTML. */
function tableRows(html: string, path: string): string[][] {
  const start = html.indexOf(`<code>${path}</code></h4>`);
  expect(start).toBeGreaterThan(0);
  const table = html.slice(start, html.indexOf('</table>', start));
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((c) => c[1]!));
}

describe('markdown report', () => {
  it('opens with the outcome and one totals line', () => {
    const text = renderReport('markdown', buildFixtureSummary());
    const [title, blank, totals] = text.split('\n');
    expect(title).toBe('## mcp-migrate: 3 migrations pending');
    expect(blank).toBe('');
    expect(totals).toBe('**6 files** · 2 → SDK · 1 → envelope · 2 left alone · 1 error · 27 findings (24 fixed by the planned rewrites) · mode `check` · exit 3');
    expect(renderReport('markdown', buildFixtureSummary('apply', ['corpus/06-console-log-noise/server.js'])).split('\n')[0]).toBe(
      '## mcp-migrate: 1 file migrated, 2 migrations not applied',
    );
  });

  it('groups files by package, known packages first, each with its manifest change', () => {
    const text = renderReport('markdown', buildFixtureSummary());
    const headings = text.split('\n').filter((l) => l.startsWith('### ') || l.startsWith('#### '));
    expect(headings).toEqual([
      '### Package `corpus/06-console-log-noise`',
      '#### `corpus/06-console-log-noise/server.js`',
      '### Package `corpus/08-no-jsonrpc-field`',
      '#### `corpus/08-no-jsonrpc-field/main.js`',
      '### Other files',
      '#### `broken/server.js`',
      '#### `corpus/11-content-length-framing/server.js`',
      '#### `corpus/13-already-sdk-mcpserver/server.js`',
      '#### `rules/sdk-bypass.mjs`',
      '### Rules found',
    ]);
    const inventory = text.slice(text.indexOf('### Package `corpus/06'), text.indexOf('### Package `corpus/08'));
    expect(inventory).toContain('**SDK rewrite** onto `@modelcontextprotocol/sdk` (`Server` + `setRequestHandler`) · pending');
    expect(inventory).toContain('- fixed by the SDK: answers ping');
    expect(inventory).toContain('- `corpus/06-console-log-noise/package.json` gains `@modelcontextprotocol/sdk@^1.32.2`, `zod@^3.25.0`, then run `npm install`');
    expect(text).toContain('**Envelope fallback** `CONTENT_LENGTH_FRAMING`: the SDK stdio transport only speaks newline-delimited JSON (line 45) · pending');
    expect(text).toContain('- adds `corpus/11-content-length-framing/mcp-envelope.js`');
    expect(text).toContain('**Left alone** `ALREADY_SDK`: already uses @modelcontextprotocol/sdk · unchanged');
  });

  it('renders findings as a table whose cells survive `|` and backticks in messages', () => {
    const html = md.render(renderReport('markdown', buildFixtureSummary()));
    const rows = tableRows(html, 'corpus/06-console-log-noise/server.js');
    expect(rows[0]).toEqual(['Line', 'Rule', 'Finding', 'Fixed by the rewrite']);
    expect(rows).toHaveLength(13);
    for (const row of rows) expect(row).toHaveLength(4);
    expect(rows[5]).toEqual(['78:11', '<code>wrong-id</code>', expect.stringContaining('<code>msg.id || null</code>'), 'yes']);
    const bypass = tableRows(html, 'rules/sdk-bypass.mjs');
    expect(bypass.slice(1).map((r) => [r[0], r[3]])).toEqual([['7:3', 'no'], ['12:1', 'no'], ['13:1', 'no']]);
  });

  it('escapes text from the run: no raw HTML, no stray emphasis, code spans intact', () => {
    const html = md.render(renderReport('markdown', buildFixtureSummary()));
    expect(html).not.toContain('<script>');
    expect(html).toContain('Unexpected token <code>|</code> &lt;script&gt;alert(1)&lt;/script&gt; *here* (3:1)');
    expect(html).toContain('body length counted in UTF-16 units | not bytes');
  });

  it('escaping helpers: fences longer than the backticks inside, pipes escaped in tables only', () => {
    expect(codeSpan('a`b', false)).toBe('``a`b``');
    expect(codeSpan('`x`', false)).toBe('`` `x` ``');
    expect(codeSpan('a|b', true)).toBe('`a\\|b`');
    expect(escapeText('use `x || y` or *z* | <b>', true)).toBe('use `x \\|\\| y` or \\*z\\* \\| \\<b\\>');
    expect(escapeText('an ` unmatched tick', false)).toBe('an \\` unmatched tick');
    expect(escapeText('two\nlines', false)).toBe('two lines');
    const cell = md.render(`| a |\n|---|\n| ${escapeText('``a`b`` and `c|d`', true)} |`);
    expect(cell).toContain('<td><code>a`b</code> and <code>c|d</code></td>');
  });

  it('lists each rule found once, with its description and hint', () => {
    const text = renderReport('markdown', buildFixtureSummary());
    const rules = text.slice(text.indexOf('### Rules found')).split('\n').filter((l) => l.startsWith('- '));
    expect(rules.map((l) => /^- `([a-z-]+)`/.exec(l)![1])).toEqual([
      'missing-jsonrpc',
      'wrong-id',
      'nonstandard-error',
      'reply-to-notification',
      'parse-error-unanswered',
      'stdout-pollution',
      'sdk-transport-bypassed',
    ]);
  });

  it('stays under GitHub’s comment limit on a huge run and says what it left out', () => {
    const base = buildFixtureSummary();
    const template = base.files[0]!;
    const files: FileResult[] = Array.from({ length: 600 }, (_, i) => ({ ...template, path: `packages/p${String(i).padStart(3, '0')}/server.js` }));
    const text = renderReport('markdown', { ...base, files, manifests: [] });
    expect(text.length).toBeLessThan(65_536);
    const shown = text.split('\n').filter((l) => l.startsWith('#### ')).length;
    expect(shown).toBeGreaterThan(10);
    expect(text).toContain(`_…and ${600 - shown} more files: this comment is too long for all of them; see the JSON report._`);
    expect(text).toContain('### Rules found');
  });

  it('carries each diff in a collapsed <details> block, the vendored helper named in one line', () => {
    const text = renderReport('markdown', buildFixtureSummary());
    // GitHub renders the HTML of a comment (<details>); markdown-it does with html: true
    const html = new MarkdownIt({ html: true }).render(text);
    const blocks = html.match(/<details><summary>Diff \(\+\d+ −\d+\)<\/summary>[\s\S]*?<\/details>/g) ?? [];
    expect(blocks).toHaveLength(3); // the three pending rewrites; nothing for files left alone or broken
    expect(blocks[0]).toContain('<pre><code class="language-diff">--- a/corpus/06-console-log-noise/server.js');
    expect(blocks[0]).toContain('+// migrated');
    const envelope = text.slice(text.indexOf('#### `corpus/11-content-length-framing/server.js`'));
    expect(envelope).toContain('New file `corpus/11-content-length-framing/mcp-envelope.js`: the JSON-RPC envelope helper mcp-migrate vendors (1 lines');
    expect(envelope).not.toContain('+// helper');
  });

  it('a file name with CR, HTML and markdown in it renders no heading, link, image or mention of its own, and no control or bidi character', () => {
    const base = buildFixtureSummary();
    const template = base.files[0]!;
    const names = ['a\r# Heading.js', 'b\r[link](https://evil.example).js', 'c\r<img src=x onerror=alert(1)>.js', 'd\r@octocat.js', 'e\u202eevil.js', 'f\u001b]0;title\u0007.js'];
    const files: FileResult[] = names.map((path) => ({ ...template, path }));
    const text = renderReport('markdown', { ...base, files, manifests: [] });
    const html = new MarkdownIt({ html: true, linkify: true }).render(text);
    expect(html).not.toMatch(/<h\d>Heading/);
    expect(html).not.toContain('href="https://evil.example');
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/<p>@octocat|^@octocat/m);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain('e\\u202eevil.js');
  });

  it('cuts a diff that would pass the comment limit, and says so', () => {
    const base = buildFixtureSummary();
    const template = base.files[0]!;
    const big = Array.from({ length: 3000 }, (_, i) => `const value${i} = compute(${i}); // a line long enough to add up`).join('\n');
    // all lines added: a cheap diff of 3000 lines
    const files: FileResult[] = [0, 1, 2].map((i) => ({ ...template, path: `big${i}.js`, before: '', after: `${big}\n` }));
    const text = renderReport('markdown', { ...base, files, manifests: [] });
    expect(text.length).toBeLessThan(65_536);
    expect(text).toMatch(/_Cut: the first \d+ of 3003 diff lines are shown, to stay within GitHub's 65,536-character comment limit/);
    expect(text).toContain("_Diff left out: this comment would pass GitHub's 65,536-character limit.");
    expect(text.match(/<details>/g)).toHaveLength(1);
  });

  it('has no package headings when no package is known', () => {
    const text = renderReport('markdown', { ...buildFixtureSummary(), manifests: [] });
    expect(text).not.toContain('### Package');
    expect(text).not.toContain('### Other files');
  });
});
