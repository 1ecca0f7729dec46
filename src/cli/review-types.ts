// The review's questions and answers, and what a review did: the types the prompt (prompt.ts), the
// review (review.ts), the summary and the CLI share, apart from the code of each.
import type { Problem } from '../runner/discover.js';

/**
 * apply / skip: this hunk (or this file); rest / none: this and the rest of this file, or none of it;
 * all: this and everything remaining in every file; quit: stop, keep what was accepted; interrupt: Ctrl-C.
 * A file question treats rest as apply and none as skip.
 */
export type ReviewAnswer = 'apply' | 'skip' | 'rest' | 'none' | 'all' | 'quit' | 'interrupt' | 'edit';

export type ReviewQuestion =
  | {
      kind: 'file';
      /** Root-relative path of the file being asked about. */
      path: string;
      /** 1-based position among the files to review. */
      index: number;
      total: number;
      /** Why the file is asked about as a whole after its hunks were (the accepted ones cannot go alone). */
      why?: string;
      /** `e` is an answer: the proposed file can be edited in $VISUAL / $EDITOR. */
      editable?: boolean;
      /** The file shown is the user's edit of the proposal. */
      edited?: boolean;
    }
  | {
      kind: 'hunk';
      path: string;
      index: number;
      total: number;
      /** 1-based position of this part among the file's parts (a part is one hunk, or hunks that go together). */
      group: number;
      groups: number;
      /** How many hunks this part holds. */
      groupSize: number;
      editable?: boolean;
    };

/** Asks one question. Every answer has a flag: --yes (all), --dry-run / --check (none). */
export type ReviewPrompt = (question: ReviewQuestion) => Promise<ReviewAnswer>;

export interface ReviewOutcome {
  /** Every path written (package.json files, companions, source files), absolute, in write order. */
  written: string[];
  /** Source files applied (in full, or enough of it that the file is migrated). */
  applied: string[];
  /** Source files of which only independent hunks were applied: still the original server, the migration still pending. */
  partial: string[];
  /** Source files with a pending change that were not applied (skipped, or left when the user quit). */
  skipped: string[];
  /** Files whose write was refused or failed, with the reason. */
  failed: Problem[];
  quit: boolean;
  /** Ctrl-C at a question: nothing after the last accepted file was written (the run exits 130). */
  interrupted: boolean;
}
