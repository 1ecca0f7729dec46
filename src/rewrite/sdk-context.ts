// The state of one SDK rewrite (./sdk.ts and the modules it hands parts to): the target, the written shape,
// the edits of each module, each module's code style, and what the rewrite says about itself.
import type { ModuleUnit } from '../analysis/program.js';
import type { ModuleKind, SdkTarget } from '../model/types.js';
import type { EditList } from './edits.js';
import type { WrittenShape } from './sdk-code.js';
import { detectStyle, type CodeStyle } from './style.js';

export interface Ctx {
  sdk: SdkTarget;
  moduleKind: (mod: ModuleUnit) => ModuleKind;
  shape: WrittenShape;
  edits: Map<ModuleUnit, EditList>;
  styles: Map<ModuleUnit, CodeStyle>;
  notes: string[];
  fixes: string[];
}

export function getStyle(ctx: Ctx, mod: ModuleUnit): CodeStyle {
  let style = ctx.styles.get(mod);
  if (!style) {
    style = detectStyle(mod.source);
    ctx.styles.set(mod, style);
  }
  return style;
}
