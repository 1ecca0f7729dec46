// The SARIF report, validated against the SARIF 2.1.0 JSON schema (2.1.0-rtm.5, as shipped in the
// @microsoft/jest-sarif package; it is a draft-04 schema, hence ajv-draft-04).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ajvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import type * as Sarif from 'sarif';
import { describe, expect, it } from 'vitest';
import { RULE_IDS, RULES } from '../src/audit/index.js';
import { renderReport } from '../src/cli/report/index.js';
import type { RunSummary } from '../src/model/types.js';
import { buildFixtureSummary, FIXTURE_ROOT } from './fixtures/audit/run-summary.js';

const require = createRequire(import.meta.url);
const schema = JSON.parse(readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8')) as object;
// The schema's language-tag pattern is not valid with the u flag, which ajv uses by default.
// Both packages are CommonJS with `exports.default`: the same class / plugin under Node and vitest.
const ajv = new ajvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
ajvFormats.default(ajv);
const validateSarif = ajv.compile(schema);

function sarif(summary: RunSummary): Sarif.Log {
  const text = renderReport('sarif', summary);
  expect(text.endsWith('}\n')).toBe(true);
  return JSON.parse(text) as Sarif.Log;
}

function run(summary: RunSummary): Sarif.Run {
  return sarif(summary).runs[0]!;
}

const uriOf = (r: Sarif.Result) => r.locations![0]!.physicalLocation!.artifactLocation!.uri;
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

describe('sarif report', () => {
  it('is valid SARIF 2.1.0, for a check run and an apply run', () => {
    for (const summary of [buildFixtureSummary('check'), buildFixtureSummary('apply', ['corpus/06-console-log-noise/server.js'])]) {
      const log = sarif(summary);
      expect(validateSarif(log), JSON.stringify(validateSarif.errors, null, 2)).toBe(true);
      expect(log.version).toBe('2.1.0');
    }
  });

  it('the schema check can fail: a level SARIF does not have, a result without a message', () => {
    const log = sarif(buildFixtureSummary());
    const badLevel = structuredClone(log);
    badLevel.runs[0]!.results![0]!.level = 'fatal' as Sarif.Result.level;
    expect(validateSarif(badLevel)).toBe(false);
    const noMessage = structuredClone(log) as unknown as { runs: { results: Record<string, unknown>[] }[] };
    delete noMessage.runs[0]!.results[0]!.message;
    expect(validateSarif(noMessage)).toBe(false);
  });

  it('describes the tool and every rule from the RULES table', () => {
    const { driver } = run(buildFixtureSummary()).tool;
    expect(driver).toMatchObject({ name: 'mcp-migrate', version: PACKAGE_VERSION, semanticVersion: PACKAGE_VERSION });
    // the page code scanning links the tool's name to
    expect(driver.informationUri).toBe('https://www.npmjs.com/package/mcp-migrate');
    expect(driver.rules!.map((r) => r.id)).toEqual([...RULE_IDS, 'migration-pending']);
    for (const id of RULE_IDS) {
      const rule = driver.rules!.find((r) => r.id === id)!;
      expect(rule).toMatchObject({
        name: RULES[id].name,
        shortDescription: { text: RULES[id].description },
        help: { text: RULES[id].hint },
        defaultConfiguration: { level: RULES[id].severity },
        properties: { fixedBy: [...RULES[id].fixedBy] },
      });
    }
  });

  it('gives each finding a result: rule, level, message, relative location with line and column', () => {
    const summary = buildFixtureSummary();
    const { results, tool, originalUriBaseIds } = run(summary);
    const inventory = summary.files[0]!;
    const found = results!.filter((r) => uriOf(r) === 'corpus/06-console-log-noise/server.js' && r.ruleId !== 'migration-pending');
    expect(found.map((r) => [r.ruleId, r.locations![0]!.physicalLocation!.region!.startLine, r.locations![0]!.physicalLocation!.region!.startColumn])).toEqual(
      inventory.findings.map((f) => [f.rule, f.line, f.column]),
    );
    const wrongId = found.find((r) => r.ruleId === 'wrong-id')!;
    expect(wrongId).toMatchObject({
      level: 'error',
      message: { text: expect.stringContaining('msg.id || null') },
      properties: { fixedByPlannedRewrite: true },
      locations: [{ physicalLocation: { artifactLocation: { uri: 'corpus/06-console-log-noise/server.js', uriBaseId: 'SRCROOT' } } }],
    });
    expect(tool.driver.rules![wrongId.ruleIndex!]!.id).toBe('wrong-id');
    const parse = found.find((r) => r.ruleId === 'parse-error-unanswered')!;
    expect(parse.level).toBe('warning');
    expect(originalUriBaseIds!.SRCROOT!.uri).toBe(`${pathToFileURL(FIXTURE_ROOT).href}/`);
  });

  it('adds a migration-pending note per unapplied rewrite, at the decision line', () => {
    const pending = run(buildFixtureSummary()).results!.filter((r) => r.ruleId === 'migration-pending');
    expect(pending.map((r) => [uriOf(r), r.level, r.locations![0]!.physicalLocation!.region!.startLine])).toEqual([
      ['corpus/06-console-log-noise/server.js', 'note', 1],
      ['corpus/08-no-jsonrpc-field/main.js', 'note', 1],
      ['corpus/11-content-length-framing/server.js', 'note', 45],
    ]);
    expect(pending[0]!.message.text).toBe(
      'mcp-migrate would move this server onto @modelcontextprotocol/sdk. It fixes: answers ping; no reply to notifications; echoes the request id exactly.',
    );
    expect(pending[2]!.message.text).toContain('CONTENT_LENGTH_FRAMING');
  });

  it('reports files that could not be processed as tool execution notifications, not results', () => {
    const { invocations, results } = run(buildFixtureSummary());
    expect(invocations).toEqual([
      {
        executionSuccessful: false,
        exitCode: 3,
        toolExecutionNotifications: [
          {
            level: 'error',
            message: { text: expect.stringContaining('broken/server.js: Unexpected token') },
            locations: [{ physicalLocation: { artifactLocation: { uri: 'broken/server.js', uriBaseId: 'SRCROOT' } } }],
            descriptor: { id: 'file-error' },
          },
        ],
      },
    ]);
    expect(results!.some((r) => uriOf(r) === 'broken/server.js')).toBe(false);
    const clean = { ...buildFixtureSummary(), files: buildFixtureSummary().files.slice(0, 5), exitCode: 1 };
    expect(run(clean).invocations![0]).toMatchObject({ executionSuccessful: true, exitCode: 1, toolExecutionNotifications: [] });
  });

  it('leaves out what a written rewrite fixed, keeps what it did not', () => {
    const summary = buildFixtureSummary('apply', ['corpus/06-console-log-noise/server.js']);
    const results = run(summary).results!;
    expect(results.filter((r) => uriOf(r) === 'corpus/06-console-log-noise/server.js')).toEqual([]);
    expect(results.filter((r) => uriOf(r) === 'rules/sdk-bypass.mjs').map((r) => r.ruleId)).toEqual([
      'sdk-transport-bypassed',
      'sdk-transport-bypassed',
      'sdk-transport-bypassed',
    ]);
  });

  it('writes relative URIs with forward slashes, each segment percent-encoded', () => {
    // (a `\` in a POSIX file name is part of the name since the reliability work of issue 10, not a
    // separator: test/reliability-report.test.ts covers it; this test used to expect `\` -> `/`)
    const base = buildFixtureSummary();
    const file = { ...base.files[4]!, path: 'my pkg/src/server #1.js' };
    const log = sarif({ ...base, files: [file], manifests: [] });
    expect(validateSarif(log)).toBe(true);
    expect(uriOf(log.runs[0]!.results![0]!)).toBe('my%20pkg/src/server%20%231.js');
  });
});
