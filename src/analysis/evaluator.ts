// What the interpreter's helpers (call-sites.ts, class-members.ts, module-values.ts, writers.ts) ask of
// the interpreter that builds them: the static and path evaluation, the frames, and the two questions one
// helper asks another through it. They are given it at construction as this interface, so that none of
// them imports interp.ts (which imports them): the interpreter implements it.
import type * as t from '@babel/types';
import type { FunctionNode } from './ast.js';
import type { PathState } from './interp-types.js';
import type { ModuleUnit, Program } from './program.js';
import type { ClassNode, Frame, NewSite, Val } from './values.js';

export interface Evaluator {
  readonly program: Program;
  /** Functions that write to stdout directly (the static scan's). */
  readonly sinkFunctions: ReadonlySet<FunctionNode>;
  /** Functions that hold a `JSON.parse`. */
  readonly parseFunctions: ReadonlySet<FunctionNode>;
  /** The one call of a class's method (call-sites.ts). */
  readonly sites: { findMethodCallSite(cls: ClassNode, mod: ModuleUnit, methodName: string): NewSite | null };
  /** Class chains (class-members.ts). */
  readonly members: { isSameOrSubclass(sub: ClassNode, subMod: ModuleUnit, cls: ClassNode): boolean };
  evalStatic(node: t.Node, mod: ModuleUnit): Val;
  evalPure(node: t.Node, s: PathState, frame: Frame): Val;
  newState(): PathState;
  moduleOf(node: t.Node): ModuleUnit | null;
  topFrame(mod: ModuleUnit): Frame;
  frameAt(mod: ModuleUnit, node: t.Node, top: Frame): Frame;
  bindPattern(pattern: t.Node, value: Val, s: PathState, frame: Frame, strict?: boolean): void;
  readIdentifier(id: t.Identifier, s: PathState, frame: Frame): Val;
  readCell(s: PathState, cell: number): Map<string, Val> | undefined;
  member(object: Val, name: string, s: PathState, frame: Frame, node: t.Node | null): Val;
  builtinMember(module: string, name: string): Val;
}
