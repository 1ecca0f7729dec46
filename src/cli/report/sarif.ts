// The SARIF 2.1.0 report, for code scanning (GitHub, Azure DevOps, IDE viewers): one run whose
// driver carries the audit's rules (RULES) plus `migration-pending`, one result per finding still in
// the code on disk, one `migration-pending` note per file with an unapplied rewrite, and the files
// that could not be processed as tool execution notifications (they are failures of the tool, not
// findings in the code).
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Sarif from 'sarif';
import { isRuleId, RULE_IDS, RULES, type RuleId } from '../../model/audit-rules.js';
import { assertNever } from '../../model/assert-never.js';
import type { Decision, FileResult, RunSummary } from '../../model/types.js';
import { isEraUpgrade } from '../../model/types.js';
import { isStdoutOnlyRewrite } from '../render.js';
import { getFileStatus, getToolVersion, TOOL_NAME, toPosix } from './model.js';

/** The tool's page: code scanning links the tool name to it (SARIF `tool.driver.informationUri`). */
export const INFORMATION_URI = 'https://www.npmjs.com/package/mcp-migrate';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** Report-level rules that are not audit findings. */
const PENDING_RULE = {
  id: 'migration-pending',
  name: 'MigrationPending',
  description: 'A hand-rolled MCP stdio server has a planned rewrite that has not been applied yet.',
  hint: 'Run `mcp-migrate` on the file (or `--yes` to apply without review), then review the diff.',
} as const;

const SRCROOT = 'SRCROOT';

export function buildSarif(summary: RunSummary): Sarif.Log {
  const rules: Sarif.ReportingDescriptor[] = [
    ...RULE_IDS.map((id) => buildRule(id)),
    {
      id: PENDING_RULE.id,
      name: PENDING_RULE.name,
      shortDescription: { text: PENDING_RULE.description },
      fullDescription: { text: PENDING_RULE.description },
      help: { text: PENDING_RULE.hint, markdown: PENDING_RULE.hint },
      defaultConfiguration: { level: 'note' },
      properties: { tags: ['mcp', 'migration'] },
    },
  ];
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i]));
  const results: Sarif.Result[] = [];
  const notifications: Sarif.Notification[] = [];
  for (const file of summary.files) {
    const status = getFileStatus(summary, file);
    const artifactLocation = getArtifactLocation(file.path);
    if (status === 'error') {
      notifications.push({
        level: 'error',
        message: { text: `${file.path}: ${file.error ?? 'could not be processed'}` },
        locations: [{ physicalLocation: { artifactLocation } }],
        descriptor: { id: 'file-error' },
      });
    }
    for (const finding of file.findings) {
      // A written rewrite removed what it fixes: those findings are no longer in the code.
      if (status === 'written' && finding.fixed) continue;
      const known = isRuleId(finding.rule);
      results.push({
        ruleId: finding.rule,
        ...(known ? { ruleIndex: ruleIndex.get(finding.rule)! } : {}),
        level: known ? RULES[finding.rule as RuleId].severity : 'warning',
        message: { text: finding.message },
        locations: [{ physicalLocation: { artifactLocation: finding.file === undefined ? artifactLocation : getArtifactLocation(finding.file), region: { startLine: finding.line, startColumn: finding.column } } }],
        properties: { fixedByPlannedRewrite: finding.fixed, hint: finding.hint },
      });
    }
    if (status === 'pending') {
      results.push({
        ruleId: PENDING_RULE.id,
        ruleIndex: ruleIndex.get(PENDING_RULE.id)!,
        level: 'note',
        message: { text: describePending(file.decision, file) },
        locations: [{ physicalLocation: { artifactLocation, region: { startLine: getDecisionLine(file.decision) } } }],
      });
    }
  }
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: TOOL_NAME,
            informationUri: INFORMATION_URI,
            version: getToolVersion(),
            semanticVersion: getToolVersion(),
            rules,
          },
        },
        originalUriBaseIds: { [SRCROOT]: { uri: toDirectoryUri(summary.root) } },
        invocations: [
          {
            executionSuccessful: summary.exitCode === 0 || summary.exitCode === 1,
            exitCode: summary.exitCode,
            toolExecutionNotifications: notifications,
          },
        ],
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
}

export function renderSarif(summary: RunSummary): string {
  return `${JSON.stringify(buildSarif(summary), null, 2)}\n`;
}

function buildRule(id: RuleId): Sarif.ReportingDescriptor {
  const rule = RULES[id];
  return {
    id,
    name: rule.name,
    shortDescription: { text: rule.description },
    fullDescription: { text: rule.description },
    help: { text: rule.hint, markdown: rule.hint },
    defaultConfiguration: { level: rule.severity },
    properties: { tags: ['mcp', 'json-rpc'], fixedBy: [...rule.fixedBy] },
  };
}

function describePending(decision: Decision, file: FileResult): string {
  const fixes = file.fixes.length > 0 ? ` It fixes: ${file.fixes.join('; ')}.` : '';
  switch (decision.kind) {
    case 'sdk':
      if (isStdoutOnlyRewrite(decision)) return `This server is already on the SDK; mcp-migrate would move its own stdout writes to stderr.${fixes}`;
      if (isEraUpgrade(decision)) {
        if (decision.already === 'v1') return `This server is on SDK v1 (@modelcontextprotocol/sdk), which speaks only the 2025 protocol era; mcp-migrate would move it to v2 with the official codemod and serve it through serveStdio, for 2025-era and 2026-07-28 clients.${fixes}`;
        return `This server is on @modelcontextprotocol/server but wired to stdio the 2025 way; mcp-migrate would serve it through serveStdio, for 2025-era and 2026-07-28 clients.${fixes}`;
      }
      return `mcp-migrate would move this server onto ${decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server'}.${fixes}`;
    case 'boundary':
      return `mcp-migrate would put ${decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server'} at this server's boundary: the SDK on the wire, the server's own handling behind it (${decision.reason}: ${decision.hint}).${fixes}`;
    case 'envelope':
      return `mcp-migrate would route this server's writes through a compliant JSON-RPC envelope (${decision.reason}: ${decision.hint}).${fixes}`;
    case 'leave':
    case 'none':
      return `mcp-migrate would change this file.${fixes}`;
    default:
      return assertNever(decision);
  }
}

function getDecisionLine(decision: Decision): number {
  return (decision.kind === 'boundary' || decision.kind === 'envelope' || decision.kind === 'leave') && decision.line !== undefined && decision.line > 0 ? decision.line : 1;
}

/**
 * A relative path as a URI reference under SRCROOT (forward slashes, each segment percent-encoded, so a
 * `\` in a POSIX file name is `%5C`, not a separator); an absolute path as a file: URI.
 */
function getArtifactLocation(path: string): Sarif.ArtifactLocation {
  if (isAbsolute(path)) return { uri: pathToFileURL(path).href };
  const posix = toPosix(path);
  return { uri: posix.split('/').map((segment) => encodeURIComponent(segment)).join('/'), uriBaseId: SRCROOT };
}

function toDirectoryUri(root: string): string {
  const href = pathToFileURL(root).href;
  return href.endsWith('/') ? href : `${href}/`;
}
