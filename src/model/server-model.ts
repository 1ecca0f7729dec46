// What a hand-rolled server is, as detection found it. Read by the planner and the rewriter.
// Nodes are references into the one parsed AST of the file; `toModelSnapshot` gives the plain view.
import type * as t from '@babel/types';

export type InputKind = 'readline-line' | 'readline-for-await' | 'stdin-data';

export interface InputLoop {
  kind: InputKind;
  line: number;
  /** Top-level (or class-member) statements that exist only to read stdin; removed by the SDK rewrite. */
  removals: t.Node[];
  /** Where `server.connect(...)` goes: the statement that started the loop. */
  anchor: t.Node;
  /** True when the anchor sits inside a function or method (connect must not use top-level await). */
  anchorInFunction: boolean;
}

/** How the message is bound where branches read it. */
export type MessageBinding =
  /** `aliases`: names the dispatcher gave to the message's members (`const { method, params } = msg`). */
  | { kind: 'identifier'; name: string; aliases?: Map<string, string> }
  | { kind: 'pattern'; pattern: t.ObjectPattern; properties: Map<string, string> };

/** How replies leave the dispatcher. */
export type ReplyProtocol =
  | { kind: 'write' }
  | { kind: 'return-envelope' }
  /** Branches return results; thrown errors become `errorCode`, or (null) `error.code` else -32603, as the SDK does. */
  | { kind: 'return-result'; errorCode: number | null }
  /** Branches assign the reply to `variable`, written once after a try whose catch answers with `errorCode`. */
  | { kind: 'assign-envelope'; variable: string; errorCode: number | null };

/** One reply found in a branch, already understood. */
export type Reply =
  | { kind: 'result'; site: t.Node; value: t.Node | null }
  | { kind: 'error'; site: t.Node; code: t.Node | null; message: t.Node | null; data: t.Node | null; rawText: string | null };

export interface MethodBranch {
  method: string;
  line: number;
  statements: t.Statement[];
  /** Bindings the body expects before it runs, e.g. `params` <- `message.params ?? {}` (handler-map entries). */
  prologue: { param: t.Node; init: t.Node } | null;
  replies: Reply[];
}

export interface InitializeInfo {
  serverInfo: t.Node | null;
  capabilities: t.Node | null;
  instructions: t.Node | null;
  protocolVersion: t.Node | null;
}

export interface ServerModel {
  /** Module syntax the file already uses; 'none' when it imports nothing (decided by extension / package type). */
  syntax: 'import' | 'require' | 'none';
  input: InputLoop;
  writerNames: string[];
  /** Declarations of the writer helpers (removed once nothing calls them). */
  writerDeclarations: t.Node[];
  writeKinds: ('stdout.write' | 'console' | 'writeSync')[];
  message: MessageBinding;
  dispatch: {
    kind: 'if-chain' | 'switch' | 'handler-map';
    line: number;
    /** The function holding the dispatch when it is not the loop itself; removed by the rewrite. */
    container: t.Node | null;
    protocol: ReplyProtocol;
  };
  methods: MethodBranch[];
  /** Declarations the dispatcher made from the message before dispatching (`const params = msg.params || {}`); each handler gets the ones it uses. */
  prelude: t.VariableDeclaration[];
  /** The branch for unknown methods, if any: its error code. */
  fallback: { line: number; code: number | null } | null;
  initialize: InitializeInfo | null;
  /** Branches whose replies answer notifications (a bug the SDK fixes). */
  notificationReplies: string[];
  /** Other statements in the loop that are dropped with it (logging, notification checks). */
  droppedInLoop: t.Node[];
  /** Where the registrations go. */
  registrationAnchor: t.Node;
  /** `this` is used by the branches: registrations must stay inside the class method. */
  usesThis: boolean;
}

export type Detection =
  | { kind: 'none' }
  | { kind: 'sdk-server'; line: number; writesStdout: boolean }
  | { kind: 'unsupported'; reason: string; line: number; detail: string }
  | { kind: 'server'; model: ServerModel };

/** A plain, serialisable view of the model for snapshots and reports. */
export function toModelSnapshot(model: ServerModel): Record<string, unknown> {
  return {
    syntax: model.syntax,
    input: { kind: model.input.kind, line: model.input.line },
    writers: model.writerNames,
    writeKinds: model.writeKinds,
    message: model.message.kind === 'identifier' ? model.message.name : [...model.message.properties.keys()],
    dispatch: { kind: model.dispatch.kind, line: model.dispatch.line, protocol: model.dispatch.protocol },
    methods: model.methods.map((m) => ({
      method: m.method,
      line: m.line,
      replies: m.replies.map((r) => `${r.kind}@${r.site.loc?.start.line}`),
    })),
    fallback: model.fallback,
    initialize: model.initialize
      ? Object.fromEntries(Object.entries(model.initialize).map(([k, v]) => [k, v ? `line ${(v as t.Node).loc?.start.line}` : null]))
      : null,
    notificationReplies: model.notificationReplies,
    usesThis: model.usesThis,
  };
}
