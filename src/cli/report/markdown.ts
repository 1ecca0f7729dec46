// The Markdown report: a summary fit for a pull-request comment. A totals line, then per package
// (the nearest directory with a package.json the run knows of) each file's decision, its findings
// as a table and its planned changes, then the rules found with their hints. Text from the summary
// (messages, reasons, paths) is escaped; the code spans in finding messages stay code spans.
import { isRuleId, RULES } from '../../model/audit-rules.js';
import { assertNever } from '../../model/assert-never.js';
import type { Decision, FileResult, ManifestChange, RunSummary } from '../../model/types.js';
import { buildFilePatch } from '../patch.js';
import { escapeText as escapeControls } from '../escape.js';
import { isEraUpgrade } from '../../model/types.js';
import { describeCompanionRole, describeEraStart, getFixer, isStdoutOnlyRewrite } from '../render.js';
import { type FileStatus, getFileStatus, getPackageDirs, getPackageOf, getTotals, TOOL_NAME } from './model.js';

/** GitHub rejects comments over 65,536 characters; stop adding file sections well before. */
const MAX_LENGTH = 60_000;

/** Below this much room left, a diff is not started (a few lines would say little). */
const MIN_DIFF_ROOM = 1_500;

/**
 * Each changed file's diff goes in a collapsed `<details>` block under its section, as long as the whole
 * comment stays under MAX_LENGTH: first the sections without diffs, then the diffs in file order with the
 * room that is left; a diff that does not fit is cut (the block says how many lines are shown) or left
 * out (the section says so). With sections already cut, no diff is added.
 */
export function renderMarkdown(summary: RunSummary): string {
  const plain = renderComment(summary, () => []);
  if (plain.omitted > 0) return plain.text;
  let room = MAX_LENGTH - plain.text.length;
  return renderComment(summary, (file) => {
    const block = renderDiffBlock(file, room);
    room -= block.join('\n').length + 1;
    return block;
  }).text;
}

function renderComment(summary: RunSummary, diffOf: (file: FileResult) => string[]): { text: string; omitted: number } {
  const head = [...renderHeadline(summary), ''];
  const tail = renderRulesFound(summary);
  const sections = renderGroups(summary, diffOf);
  const out = [...head];
  let length = [...head, ...tail].join('\n').length;
  let omitted = 0;
  for (const section of sections) {
    const text = section.join('\n');
    if (omitted > 0 || length + text.length > MAX_LENGTH) {
      omitted += section.filter((line) => line.startsWith('#### ')).length;
      continue;
    }
    out.push(...section);
    length += text.length + 1;
  }
  if (omitted > 0) out.push(`_…and ${omitted} more ${omitted === 1 ? 'file' : 'files'}: this comment is too long for all of them; see the JSON report._`, '');
  out.push(...tail);
  return { text: `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`, omitted };
}

/** The diff of a changed file in a collapsed block, within `room` characters (cut, or left out, saying so). */
function renderDiffBlock(file: FileResult, room: number): string[] {
  if (file.after === undefined || file.error !== undefined) return [];
  const diff = buildFilePatch({ path: file.path, before: file.before, after: file.after }).replace(/\r$/gm, '').split('\n').slice(1, -1);
  if (diff.length === 0) return [];
  const added = diff.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const removed = diff.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  const helpers = (file.companions ?? []).map((c) => `New file ${codeSpan(c.path, false)}: ${describeCompanionRole(c.content)} mcp-migrate vendors (${c.content.split('\n').length - 1} lines, the same in every repository), not shown.`);
  const fence = '`'.repeat(Math.max(3, ...(diff.join('\n').match(/`+/g) ?? []).map((r) => r.length + 1)));
  const open = ['', `<details><summary>Diff (+${added} −${removed})</summary>`, '', `${fence}diff`];
  const close = [fence, '', ...helpers, ...(helpers.length > 0 ? [''] : []), '</details>', ''];
  const frame = [...open, ...close].join('\n').length + 200;
  if (room - frame < MIN_DIFF_ROOM) {
    return ['', `_Diff left out: this comment would pass GitHub's 65,536-character limit. \`--patch\` or the JSON report's \`patch\` has it._`, ''];
  }
  let length = 0;
  let shown = 0;
  for (const line of diff) {
    if (length + line.length + 1 > room - frame) break;
    length += line.length + 1;
    shown++;
  }
  if (shown === diff.length) return [...open, ...diff, ...close];
  const note = `_Cut: the first ${shown} of ${diff.length} diff lines are shown, to stay within GitHub's 65,536-character comment limit. \`--patch\` or the JSON report's \`patch\` has all of it._`;
  return [...open, ...diff.slice(0, shown), fence, '', note, '', ...helpers, ...(helpers.length > 0 ? [''] : []), '</details>', ''];
}

function renderHeadline(summary: RunSummary): string[] {
  const totals = getTotals(summary);
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  let title: string;
  if (summary.mode === 'apply') {
    title = totals.written > 0 ? `${count(totals.written, 'file', 'files')} migrated` : 'No file migrated';
    if (totals.pending > 0) title += `, ${count(totals.pending, 'migration', 'migrations')} not applied`;
  } else {
    title = totals.pending > 0 ? count(totals.pending, 'migration pending', 'migrations pending') : 'No migration pending';
  }
  const parts = [
    `**${count(totals.files, 'file', 'files')}**`,
    `${totals.sdk} → SDK`,
    // (the SDK at the boundary only where a server gets it: the line stays short on most runs)
    ...(totals.boundary > 0 ? [`${totals.boundary} → SDK at the boundary`] : []),
    `${totals.envelope} → envelope`,
    `${totals.leave} left alone`,
    count(totals.errors, 'error', 'errors'),
    `${count(totals.findings, 'finding', 'findings')}${totals.findings > 0 ? ` (${totals.findingsFixed} fixed by the planned rewrites)` : ''}`,
    `mode ${codeSpan(summary.mode, false)}`,
    `exit ${summary.exitCode}`,
  ];
  return [`## ${TOOL_NAME}: ${title}`, '', parts.join(' · ')];
}

/** One section per package: its heading, its files, its manifest changes. */
function renderGroups(summary: RunSummary, diffOf: (file: FileResult) => string[]): string[][] {
  const dirs = getPackageDirs(summary);
  const groups = new Map<string | null, { files: FileResult[]; manifests: ManifestChange[] }>();
  const groupOf = (key: string | null) => {
    let group = groups.get(key);
    if (!group) {
      group = { files: [], manifests: [] };
      groups.set(key, group);
    }
    return group;
  };
  for (const file of summary.files) groupOf(getPackageOf(file.path, dirs)).files.push(file);
  for (const manifest of summary.manifests) groupOf(getPackageOf(manifest.path, dirs)).manifests.push(manifest);
  const keys = [...groups.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)));
  const headed = keys.length > 1 || keys[0] !== null;
  const sections: string[][] = [];
  for (const key of keys) {
    const group = groups.get(key)!;
    const heading = headed ? [key === null ? '### Other files' : `### Package ${codeSpan(key, false)}`, ''] : [];
    const sorted = [...group.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const files = sorted.map((file) => [...renderFile(summary, file), ...diffOf(file)]);
    // The heading travels with the first file, so a cut never leaves a heading without files.
    if (files.length > 0) files[0] = [...heading, ...files[0]!];
    else files.push(heading);
    if (group.manifests.length > 0) files[files.length - 1]!.push(...renderManifests(summary, group.manifests));
    sections.push(...files);
  }
  return sections;
}

function renderFile(summary: RunSummary, file: FileResult): string[] {
  const status = getFileStatus(summary, file);
  const lines = [`#### ${codeSpan(file.path, false)}`, '', `${describeDecision(file.decision)} · ${describeStatus(status)}`];
  if (file.error !== undefined) lines.push('', `**Error:** ${escapeText(file.error, false)}`);
  if (file.detected) lines.push('', `Detected: ${escapeText(file.detected, false)}`);
  if (file.findings.length > 0) {
    lines.push('', '| Line | Rule | Finding | Fixed by the rewrite |', '|---:|---|---|:---:|');
    for (const f of file.findings) {
      lines.push(`| ${f.file === undefined ? '' : `${escapeText(f.file, true)}:`}${f.line}:${f.column} | ${codeSpan(f.rule, true)} | ${escapeText(f.message, true)} | ${f.fixed ? 'yes' : 'no'} |`);
    }
  }
  const changes: string[] = [];
  const fixer = getFixer(file.decision);
  for (const fix of file.fixes) changes.push(`- fixed by ${fixer}: ${escapeText(fix, false)}`);
  for (const dropped of file.dropped ?? []) changes.push(`- dropped: ${escapeText(dropped, false)}`);
  if (file.decision.kind === 'sdk' || file.decision.kind === 'boundary') for (const note of file.decision.notes) changes.push(`- note: ${escapeText(note, false)}`);
  for (const companion of file.companions ?? []) changes.push(`- adds ${codeSpan(companion.path, false)}`);
  if (changes.length > 0) lines.push('', status === 'written' ? '**Changes made:**' : '**Planned changes:**', '', ...changes);
  if (file.diagnostics.length > 0) {
    lines.push('', '**Diagnostics:**', '');
    for (const d of file.diagnostics) {
      const at = d.line === undefined ? '' : ` (line ${d.line}${d.column === undefined ? '' : `:${d.column}`})`;
      lines.push(`- ${codeSpan(d.code, false)} ${escapeText(d.message, false)}${at}`);
    }
  }
  lines.push('');
  return lines;
}

function renderManifests(summary: RunSummary, manifests: ManifestChange[]): string[] {
  const lines = ['**Dependencies:**', ''];
  for (const m of manifests) {
    const added = Object.entries(m.added).map(([name, range]) => codeSpan(`${name}@${range}`, false)).join(', ');
    const verb = summary.written.includes(m.path) ? 'gained' : 'gains';
    lines.push(`- ${codeSpan(m.path, false)} ${verb} ${added}, then run ${codeSpan(m.installCommand, false)}`);
  }
  lines.push('');
  return lines;
}

/** The rules found in this run, once each, with what they mean and what to do. */
function renderRulesFound(summary: RunSummary): string[] {
  const found = new Set(summary.files.flatMap((f) => f.findings.map((x) => x.rule)));
  const lines: string[] = [];
  for (const rule of Object.keys(RULES)) {
    if (!found.has(rule) || !isRuleId(rule)) continue;
    lines.push(`- ${codeSpan(rule, false)}: ${escapeText(RULES[rule].description, false)} ${escapeText(RULES[rule].hint, false)}`);
  }
  return lines.length > 0 ? ['### Rules found', '', ...lines, ''] : [];
}

function describeDecision(decision: Decision): string {
  switch (decision.kind) {
    case 'sdk': {
      if (isStdoutOnlyRewrite(decision)) return '**Already on the SDK**: its own stdout writes move to stderr';
      if (isEraUpgrade(decision)) {
        return `**Upgraded to the 2026-07-28 era**: ${describeEraStart(decision, (name) => `\`${name}\``)}, served through \`serveStdio\` (2025-era and 2026-07-28 clients)`;
      }
      const pkg = decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server';
      const style = decision.style === 'server' ? '`Server` + `setRequestHandler`' : '`McpServer.registerTool`';
      return `**SDK rewrite** onto ${codeSpan(pkg, false)} (${style})`;
    }
    case 'boundary': {
      const pkg = decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server';
      return `**SDK at the boundary** onto ${codeSpan(pkg, false)}, the server's own handling behind it; not at the dispatcher: ${codeSpan(decision.reason, false)} ${escapeText(decision.hint, false)}${decision.line === undefined ? '' : ` (line ${decision.line})`}`;
    }
    case 'envelope':
      return `**Envelope fallback** ${codeSpan(decision.reason, false)}: ${escapeText(decision.hint, false)}${decision.line === undefined ? '' : ` (line ${decision.line})`}`;
    case 'leave':
      return `**Left alone** ${codeSpan(decision.reason, false)}: ${escapeText(decision.hint, false)}${decision.line === undefined ? '' : ` (line ${decision.line})`}`;
    case 'none':
      return '**No change**';
    default:
      return assertNever(decision);
  }
}

function describeStatus(status: FileStatus): string {
  switch (status) {
    case 'pending':
      return 'pending';
    case 'written':
      return 'written';
    case 'unchanged':
      return 'unchanged';
    case 'error':
      return 'could not be processed';
    default:
      return assertNever(status);
  }
}

// ---- escaping --------------------------------------------------------------------------------

/**
 * A code span that shows `text` exactly: a backtick fence longer than any run inside it, padded when
 * the text starts or ends with a backtick. In a table cell `|` is escaped too (GFM splits cells first).
 */
/**
 * One line of text for a Markdown line: every line ending (CR, LF, CRLF, U+2028/9: each ends a Markdown
 * line and would let a name open a heading, a link or HTML of its own) becomes a space; the other control
 * characters and the bidi controls are written as visible escapes (`\x1b`, `\u202e`).
 */
function flatten(text: string): string {
  return escapeControls(text.replace(/\r\n|[\r\n\u2028\u2029]/g, ' '));
}

export function codeSpan(text: string, inTable: boolean): string {
  const flat = flatten(text);
  const runs = flat.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || /^ .* $/.test(flat) ? ' ' : '';
  const body = inTable ? flat.replace(/\|/g, '\\|') : flat;
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * Plain text that may hold code spans (our finding messages quote code in backticks): the code spans
 * are kept, everything else has Markdown's punctuation escaped. Newlines become spaces.
 */
export function escapeText(text: string, inTable: boolean): string {
  const flat = flatten(text);
  let out = '';
  let i = 0;
  while (i < flat.length) {
    if (flat[i] === '`') {
      const run = /^`+/.exec(flat.slice(i))![0];
      const close = findClosingRun(flat, i + run.length, run.length);
      if (close >= 0) {
        const body = flat.slice(i + run.length, close);
        out += run + (inTable ? body.replace(/\|/g, '\\|') : body) + run;
        i = close + run.length;
      } else {
        out += '\\`'.repeat(run.length);
        i += run.length;
      }
      continue;
    }
    const ch = flat[i]!;
    out += /[\\*_[\]<>|~#!&]/.test(ch) ? `\\${ch}` : ch;
    i++;
  }
  return out;
}

/** Index of the next backtick run of exactly `length` at or after `from`, or -1. */
function findClosingRun(text: string, from: number, length: number): number {
  const re = /`+/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === length) return m.index;
  }
  return -1;
}
