// Machine-readable and review reports of a run. (Placeholder until the report renderers land.)
import type { RunSummary } from '../../model/types.js';

export type ReportFormat = 'json' | 'markdown' | 'sarif';

export function renderReport(format: ReportFormat, summary: RunSummary): string {
  return JSON.stringify({ format, files: summary.files.length }, null, 2) + '\n';
}
