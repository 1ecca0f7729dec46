// GitHub Actions annotations. Inside a workflow (GITHUB_ACTIONS=true) the text output also carries
// workflow commands, which GitHub shows on the pull request's "Files changed" tab and in the run summary:
//   ::error file=src/a.js::does not parse: Unexpected token (3:9)
//   ::notice file=src/server.js,line=1,title=mcp-migrate%3A sdk migration pending::...
//   ::warning file=src/server.js,line=12,col=5,title=mcp-migrate wrong-id::... — ...
// This module chooses what to annotate and formats it; main.ts decides when and on which stream.
// GitHub keeps only the first 10 warnings and 10 errors of a step (50 annotations per job) as
// annotations, so a file gets one notice for its pending migration — the findings the migration fixes
// are listed in it — and only findings nobody will fix get a warning each.
import { escapeText, quoteShellPath } from './escape.js';
import { relative, resolve } from 'node:path';
import { assertNever } from '../model/assert-never.js';
import type { FileResult } from '../model/types.js';
import { toPosix, type Problem } from '../runner/discover.js';
import { isEraUpgrade } from '../model/types.js';
import { isStdoutOnlyRewrite } from './render.js';

export type AnnotationLevel = 'error' | 'warning' | 'notice';

export interface Annotation {
  level: AnnotationLevel;
  /** Relative to the workspace, forward slashes. */
  file: string;
  line?: number;
  col?: number;
  title?: string;
  message: string;
}

export interface AnnotationInput {
  /** Scan results (absolute paths). */
  results: readonly FileResult[];
  /** Everything that could not be processed or written (absolute paths), as collectErrors lists it. */
  errors: readonly Problem[];
  /** Files written in this run: their migration is no longer pending. */
  applied: ReadonlySet<string>;
  /** Absolute path -> the path GitHub knows the file by (relative to the workspace). */
  path: (absolute: string) => string;
}

/**
 * Leave reasons that mean "nothing for anyone to do here": a notice on every pull request that touches
 * an SDK server, or on a file the owner asked to be left alone, would only be noise.
 */
const QUIET_LEAVE_REASONS: readonly string[] = ['ALREADY_ON_SDK', 'IGNORED'];

export function isGitHubActions(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** Absolute path -> path relative to GITHUB_WORKSPACE when set (resolved against `cwd`), else to `cwd`. */
export function createWorkspacePath(env: Readonly<Record<string, string | undefined>>, cwd: string): (absolute: string) => string {
  const workspace = env.GITHUB_WORKSPACE !== undefined && env.GITHUB_WORKSPACE !== '' ? resolve(cwd, env.GITHUB_WORKSPACE) : cwd;
  return (absolute) => toPosix(relative(workspace, absolute)) || '.';
}

/**
 * A workflow command's message: `%`, CR and LF are escaped (the runner decodes them back); any other
 * control character (an ESC in a file name) has no such escape and is written visibly (`\x1b`).
 */
export function escapeData(text: string): string {
  return escapeText(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

/** A workflow command's property value: like escapeData, plus `:` and `,` (they delimit properties). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One `::level file=...,line=...,col=...,title=...::message` line, newline included. */
export function formatAnnotation(annotation: Annotation): string {
  const properties: string[] = [`file=${escapeProperty(annotation.file)}`];
  if (annotation.line !== undefined) properties.push(`line=${Math.max(1, annotation.line)}`);
  if (annotation.col !== undefined) properties.push(`col=${Math.max(1, annotation.col)}`);
  if (annotation.title !== undefined) properties.push(`title=${escapeProperty(annotation.title)}`);
  return `::${annotation.level} ${properties.join(',')}::${escapeData(annotation.message)}\n`;
}

/** Errors first, then per file (in path order): the pending migration or the reason it was left, then unfixed findings by line. */
export function buildAnnotations({ results, errors, applied, path }: AnnotationInput): Annotation[] {
  const annotations: Annotation[] = [];
  const seenErrors = new Set<string>();
  const seenFindings = new Set<string>();
  for (const error of errors) {
    const key = `${error.path}\0${error.message}`;
    if (seenErrors.has(key)) continue;
    seenErrors.add(key);
    annotations.push({ level: 'error', file: path(error.path), title: 'mcp-migrate: could not be processed', message: error.message });
  }
  for (const result of [...results].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (result.error !== undefined) continue;
    const file = path(result.path);
    const pending = result.after !== undefined && !applied.has(result.path);
    const fixedLater = (fixed: boolean): boolean => fixed && (pending || applied.has(result.path));
    const decision = buildDecisionAnnotation(result, file, pending);
    if (decision !== null) annotations.push(decision);
    // the file's own findings, then those in the modules it imports (a module two servers import: once)
    const unfixed = result.findings.filter((f) => !fixedLater(f.fixed)).sort((a, b) => Number(a.file !== undefined) - Number(b.file !== undefined) || (a.file ?? '').localeCompare(b.file ?? '') || a.line - b.line || a.column - b.column);
    for (const finding of unfixed) {
      const annotation: Annotation = {
        level: 'warning',
        file: finding.file === undefined ? file : path(finding.file),
        line: finding.line,
        col: finding.column,
        title: `mcp-migrate ${finding.rule}`,
        message: finding.hint === '' ? finding.message : `${finding.message} — ${finding.hint}`,
      };
      const key = formatAnnotation(annotation);
      if (seenFindings.has(key)) continue;
      seenFindings.add(key);
      annotations.push(annotation);
    }
  }
  return annotations;
}

function buildDecisionAnnotation(result: FileResult, file: string, pending: boolean): Annotation | null {
  const { decision } = result;
  // not `npx mcp-migrate`: the package is not on the npm registry yet (README, Install)
  const run = `Run \`mcp-migrate ${quoteShellPath(file)}\` to review and apply it.`;
  // What the migration fixes: the pipeline's list, then the audit findings it resolves (with their lines).
  const fixes = result.fixes.length > 0 ? [`It fixes: ${result.fixes.join('; ')}.`] : [];
  const fixedFindings = result.findings.filter((f) => f.fixed).sort((a, b) => a.line - b.line);
  if (fixedFindings.length > 0) fixes.push(`Findings it resolves: ${fixedFindings.map((f) => `${f.rule} (line ${f.line})`).join(', ')}.`);
  switch (decision.kind) {
    case 'sdk': {
      if (!pending) return null;
      if (isStdoutOnlyRewrite(decision)) {
        const lines = [`This server already uses the official MCP SDK, but writes to stdout itself, past its transport; those writes can move to stderr. ${run}`, ...fixes];
        return { level: 'notice', file, line: 1, title: 'mcp-migrate: stdout writes to move', message: lines.join('\n') };
      }
      if (isEraUpgrade(decision)) {
        const from = decision.already === 'v1' ? 'on SDK v1 (@modelcontextprotocol/sdk; the official codemod moves it to v2)' : 'on @modelcontextprotocol/server but wired to stdio the 2025 way (connect + StdioServerTransport)';
        const lines = [`This server is ${from}, so clients of the 2026-07-28 revision cannot reach it; serveStdio serves both eras. ${run}`, ...fixes];
        return { level: 'notice', file, line: 1, title: 'mcp-migrate: protocol era upgrade pending', message: lines.join('\n') };
      }
      const pkg = decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server';
      const style = decision.style === 'server' ? 'Server + setRequestHandler' : 'McpServer.registerTool';
      const lines = [`This hand-rolled MCP stdio server can move onto the official SDK (${pkg}, ${style}). ${run}`, ...fixes];
      return { level: 'notice', file, line: 1, title: 'mcp-migrate: sdk migration pending', message: lines.join('\n') };
    }
    case 'boundary': {
      if (!pending) return null;
      const pkg = decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server';
      const lines = [`This hand-rolled MCP stdio server can move onto the official SDK (${pkg}) at its boundary: the SDK owns the wire and hands each request to the server's own handling (not at the dispatcher: ${decision.reason}, ${decision.hint}). ${run}`, ...fixes];
      return { level: 'notice', file, line: decision.line ?? 1, title: 'mcp-migrate: sdk migration pending (boundary)', message: lines.join('\n') };
    }
    case 'envelope': {
      if (!pending) return null;
      const lines = [`The SDK rewrite would change behaviour (${decision.reason}: ${decision.hint}); the server's writes can go through a compliant JSON-RPC envelope helper instead. ${run}`, ...fixes];
      return { level: 'notice', file, line: decision.line ?? 1, title: 'mcp-migrate: envelope migration pending', message: lines.join('\n') };
    }
    case 'leave':
      if (QUIET_LEAVE_REASONS.includes(decision.reason)) return null;
      return { level: 'notice', file, line: decision.line ?? 1, title: `mcp-migrate: left alone (${decision.reason})`, message: decision.hint };
    case 'none':
      // A pipeline may still propose a change without a decision; it is pending all the same.
      return pending ? { level: 'notice', file, line: 1, title: 'mcp-migrate: change pending', message: run } : null;
    default:
      return assertNever(decision);
  }
}

export function renderAnnotations(input: AnnotationInput): string {
  return buildAnnotations(input).map(formatAnnotation).join('');
}
