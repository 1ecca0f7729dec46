// Machine-readable and review reports of a run, one renderer per format (docs/reports.md):
//   json      stable schema (schemaVersion 1) for scripts and batch-change engines
//   markdown  a pull-request comment: totals, then per package each file's decision, findings, changes
//   sarif     SARIF 2.1.0 for code scanning: the audit's rules and findings, pending migrations
// Renderers are pure: a RunSummary in, the report's text out (ending with a newline).
import { assertNever } from '../../model/assert-never.js';
import type { RunSummary } from '../../model/types.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import { renderSarif } from './sarif.js';

export type ReportFormat = 'json' | 'markdown' | 'sarif';

export function renderReport(format: ReportFormat, summary: RunSummary): string {
  switch (format) {
    case 'json':
      return renderJson(summary);
    case 'markdown':
      return renderMarkdown(summary);
    case 'sarif':
      return renderSarif(summary);
    default:
      return assertNever(format);
  }
}
