// Types shared by every phase. No logic lives here.
import type { ReasonCode, StyleReason } from './reasons.js';
import type { SdkTarget } from './sdk-targets.js';
import type { WireChange } from './wire-changes.js';

export type ModuleKind = 'esm' | 'cjs';
export type { SdkTarget };
export type Style = 'server' | 'mcp-server';

/** A JSON-RPC / MCP compliance problem found in a source file (the audit). */
export interface Finding {
  rule: string;
  message: string;
  hint: string;
  /** The module the finding is in when it is not the file itself (a module the file imports, same path style); line and column are in it. */
  file?: string;
  line: number;
  column: number;
  /** Whether the planned rewrite of this file fixes it. */
  fixed: boolean;
}

/** Something the tool wants a human to know about one file (not a protocol finding). */
export interface Diagnostic {
  code: string;
  message: string;
  line?: number;
  column?: number;
}

/** The rewrite serves both protocol eras (SDK v2's serveStdio): the dispatcher-level and boundary rewrites onto v2, and the era upgrade. */
export function servesBothEras(decision: Decision): boolean {
  return (decision.kind === 'sdk' && decision.sdk === 'v2' && decision.already !== 'stdout') || (decision.kind === 'boundary' && decision.sdk === 'v2');
}

/** A server already on the SDK whose 2025-era stdio wiring moves to `serveStdio` (both protocol eras); from v1, through the official codemod. */
export function isEraUpgrade(decision: Decision): boolean {
  return decision.kind === 'sdk' && (decision.already === 'era' || decision.already === 'v1');
}

export type Decision =
  /**
   * `wireChanges`: how the written style answers differently from the original (McpServer's, listed in
   * the diff header; the proof expects exactly these). `styleReason`: why `--style mcp-server` was not applied.
   * `already`: the server was on the SDK before: `stdout`, only its own stdout writes move to stderr;
   * `era`, its 2025-era stdio wiring moves to `serveStdio` (both eras; its stdout writes move too);
   * `v1`, it was on SDK v1: the official codemod moves it to v2, then its wiring moves to `serveStdio`.
   */
  | { kind: 'sdk'; sdk: SdkTarget; style: Style; notes: string[]; wireChanges?: WireChange[]; styleReason?: StyleReason; already?: 'stdout' | 'era' | 'v1' }
  /**
   * The SDK at the boundary: the SDK owns the wire and hands each request to the server's own handling.
   * `reason`: why the dispatcher-level rewrite was not made.
   */
  | { kind: 'boundary'; sdk: SdkTarget; reason: ReasonCode; hint: string; line?: number; notes: string[]; wireChanges?: WireChange[] }
  | { kind: 'envelope'; reason: ReasonCode; hint: string; line?: number }
  | { kind: 'leave'; reason: ReasonCode; hint: string; line?: number }
  | { kind: 'none' };

export interface PipelineOptions {
  sdk: SdkTarget;
  style: Style;
  /**
   * Module system of the file, from its extension and the nearest package.json `type` (the runner knows;
   * the pipeline does no I/O). When absent the pipeline infers it from the syntax.
   */
  moduleKind?: ModuleKind;
  /**
   * SDK output only: the entry point sends console.log/info/debug to stderr, so nothing (a dependency's
   * logger included) writes to the stdout the transport owns. Default true.
   */
  guardStdout?: boolean;
  /**
   * Rewrites of this file that were run next to the original and answered worse (the runner's proof
   * step, src/runner/prove.ts), each with its differences in one line: the plan takes the next option
   * of the chain instead (SDK -> SDK at the boundary -> envelope -> left alone).
   */
  refused?: RefusedRewrites;
  /**
   * Set by the runner when the SDK rewrite of this file cannot be offered for a reason outside the file
   * (entry files that share a server module and need different SDK rewrites of it): a server the SDK
   * rewrite would take gets the envelope instead, with this reason. The detail says why.
   */
  sdkDeclined?: { reason: 'ENTRIES_DIFFER'; detail: string };
  /**
   * Servers already on the SDK are brought to the current protocol era (v2 wired the 2025 way moves to
   * `serveStdio`; v1 is pointed at the official codemod). Every run but `--sdk v1` (the runner sets it);
   * default: `sdk` is v2.
   */
  upgradeSdk?: boolean;
  /**
   * The require entry of the official @modelcontextprotocol/codemod where it is installed (the runner
   * looks): a server on SDK v1 is moved to v2 by it, in memory, then upgraded to the current era.
   */
  codemod?: string;
}

export interface RefusedRewrites {
  /** The `--style mcp-server` form answered worse than its listed wire changes allow: the server style is tried next. */
  mcpServer?: string;
  sdk?: string;
  boundary?: string;
  envelope?: string;
}

/** What the pipeline returns for one file. `after` is set only when the file changes. */
export interface FileResult {
  path: string;
  before: string;
  after?: string;
  decision: Decision;
  /** One line: what was detected ("readline 'line' loop, send() writer, if-chain on msg.method, 3 methods"). */
  detected?: string;
  /** The methods detection saw the server answer (`--verify` calls the ones MCP does not define). */
  methods?: string[];
  /** Compliance bugs of the original that the rewrite fixes (shown in the diff header as "fixed by the SDK"). */
  fixes: string[];
  /**
   * User code the rewrite removes beyond the I/O the SDK or the envelope takes over, one line each, with why
   * (e.g. "line 42: the `notifications/initialized` branch, which also called loadCache(): the SDK answers
   * that notification itself"). Shown in the diff header.
   */
  dropped?: string[];
  findings: Finding[];
  diagnostics: Diagnostic[];
  /** Set when the file could not be processed at all (unreadable, does not parse, ...). */
  error?: string;
  /**
   * New files the rewrite needs next to this one (the envelope helper module). Several files of one
   * package may ask for the same path with the same content; the runner writes it once.
   */
  companions?: { path: string; content: string }[];
  /**
   * Other files of the same server the rewrite changes (a dispatcher in an imported module). The runner
   * turns each into a result of its own, reviewed and written like any file.
   */
  related?: { path: string; before: string; after: string }[];
  /** Set on a result that exists because another file's rewrite changes it: that file's path. */
  partOf?: string;
  /**
   * A module shared by several entry files whose rewrites change it identically (one change, written
   * once): the entries besides `partOf`. Each of them is migrated only together with this file.
   */
  alsoPartOf?: string[];
  /**
   * Set when the file's stdin loop runs only when a function is called by a file importing it (its own
   * program never calls it): the modules holding that loop (the file itself, or a module it imports whose
   * function starting the loop the file never calls). When an entry whose rewrite changes one of them is
   * migrated, this file is part of that entry's server, not an entry of its own (scan.ts).
   */
  startedByImporter?: string[];
}

/** A package.json the run wants to change (the SDK dependency), reviewed like a source file. */
export interface ManifestChange {
  path: string;
  before: string;
  after: string;
  added: Record<string, string>;
  /** e.g. "npm install" / "pnpm install" / "yarn install", from the lockfile present */
  installCommand: string;
}

/** Everything one run produced; what reporters render. Paths are relative to `root`. */
export interface RunSummary {
  root: string;
  mode: 'apply' | 'dry-run' | 'check';
  files: FileResult[];
  manifests: ManifestChange[];
  /** Files that were applied (written) in this run. */
  written: string[];
  /** Exit code the run ends with (0/1/2/3). */
  exitCode: number;
  /** What the proof said of each file's rewrite, by the file's path as reported (files with no rewrite have none). */
  proofs?: Record<string, ProofRecord>;
}

/** What the proof said of a file's rewrite in this run (the file's own, or that of the entry it is part of). */
export interface ProofRecord {
  /** `not-run`: the proof did not run (`--dry-run` or `--check` without `--verify`, `--no-verify`). */
  status: 'same' | 'differs' | 'not-verified' | 'not-run';
  /** How many requests were compared, what differs, or why it could not be run. */
  detail: string | null;
  seconds: number | null;
}
