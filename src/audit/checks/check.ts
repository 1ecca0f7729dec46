// The shape every check has: facts about one file in, findings (at AST nodes) out.
import type * as t from '@babel/types';
import type { FileFacts } from '../facts.js';
import type { RuleId } from '../../model/audit-rules.js';

export interface RawFinding {
  rule: RuleId;
  node: t.Node;
  message: string;
}

export type Check = (facts: FileFacts) => RawFinding[];
