// What a hand-rolled server is, as detection found it: read by the planner and the rewriters.
// Nodes are references into the parsed modules of the program (analysis/program.ts).
import type * as t from '@babel/types';
import type { Binding, FunctionNode } from '../analysis/ast.js';
import type { FileFacts, SinkCall, StdinConsumer } from '../analysis/facts.js';
import type { ModuleUnit } from '../analysis/program.js';
import type { Frame, Val } from '../analysis/values.js';
import type { StdioRef } from '../analysis/stdio-refs.js';
import type { Blocker, EnvelopeReason } from './reasons.js';

/** The function every request goes through, or the code after the parse when the loop dispatches inline. */
export type Dispatcher =
  | {
      kind: 'function';
      fn: FunctionNode;
      mod: ModuleUnit;
      /** The call on the input side that hands it the message: what the SDK registration calls instead. */
      call: t.CallExpression;
      callMod: ModuleUnit;
      callFrameFn: FunctionNode | null;
      /** The `JSON.parse` call, and the variable it is stored in (what the registration replaces with the request). */
      parseCall: t.CallExpression;
      messageBinding: Binding | null;
      /** Arguments of `call` that are the parsed message itself, handed on by name (`receive(msg) { this.dispatch(msg) }`). */
      messageArgs?: ReadonlySet<t.Node>;
    }
  | {
      kind: 'inline';
      fn: FunctionNode;
      mod: ModuleUnit;
      /** The statement holding `JSON.parse`; the dispatch is the code after it. */
      parseStatement: t.Statement;
      parse: t.CallExpression;
    };

/**
 * An expression of the program as the analysis met it, evaluated in `frame` (a helper's parameters read
 * as the arguments its caller handed it). The rewrite writes it where it is needed (rewrite/sdk-code.ts).
 */
export interface CodeRef {
  node: t.Node;
  frame: Frame | null;
  mod: ModuleUnit;
}

/** A value the analysis knows completely: a literal, or an object of such values. */
export type KnownValue = { k: 'lit'; value: unknown } | { k: 'obj'; fields: Array<[string, KnownValue]> };

/** A value to write at another place: the expression that computes it, or the value itself. */
export type ValueRef = { code: CodeRef } | { known: KnownValue };

/** What a reply is, as the server writes it. */
export type ReplyRef =
  | { kind: 'result'; value: ValueRef }
  /** `error: { code, message, data }` written as an object: each member (null: absent). `unknownMethod`: no code, and a message that says the method is unknown. */
  | { kind: 'error-object'; code: CodeRef | null; message: CodeRef | null; data: CodeRef | null; unknownMethod: boolean }
  /**
   * `error: <expression>`, not an object literal: an Error, a message string, an object held in a
   * variable or built where the reply is written (`holds`, as the analysis sees it). `siteCode`: the code
   * a message string gets there; `caught`: the name of the error a catch clause caught when the
   * expression is `<that name>.message`.
   */
  | { kind: 'error-expression'; value: CodeRef; holds: 'error' | 'string' | 'object' | 'either'; siteCode: string | null; caught: string | null };

/** One place that writes a reply, and what it becomes. */
export interface ReplySite {
  /** direct: the write (or a writer helper call) holds the reply; constructed: an earlier `response = {...}` does. */
  kind: 'direct' | 'constructed';
  /** statement: `statement` becomes `return ...` / `throw ...`; arrow-body: it is an arrow's expression body. */
  form: 'statement' | 'arrow-body';
  /** The statement (or arrow body expression) that becomes the return or throw. */
  statement: t.Node;
  /** For constructed replies: the write of the variable, removed. */
  writeStatement: t.Statement | null;
  mod: ModuleUnit;
  fn: FunctionNode | null;
  /**
   * The reply of each path that reaches the site, in the order the analysis met them (`order` counts
   * over every site). `owned`: the path is of a method the SDK answers itself, so a reply that cannot be
   * written there is no obstacle (the site goes with its branch).
   */
  replies: Array<{ ref: ReplyRef; owned: boolean; order: number }>;
  /** Methods whose requests reach it ('\0other' for unknown methods, '\0any' where the method was not looked at). */
  methods: Set<string>;
  /** `return;` / `break;` right after the reply: unreachable once it is a return. */
  unreachableAfter: t.Statement[];
  line: number;
  /** The calls from the dispatcher down to this reply's function. */
  chain?: ReturnedCall[];
}

/** A call between the dispatcher and a reply: it must hand the reply back (`return handleCall(id, params)`). */
export interface ReturnedCall {
  call: t.CallExpression;
  statement: t.Statement;
  mod: ModuleUnit;
  /** Inside a try whose catch must not see the reply's rejection: `return f()` rather than `return await f()` (the rewrite decides: rewrite/sdk-code.ts). */
  dropAwait: boolean;
}

/** Where an unknown method's handling ends without a reply (when the SDK routes it to the dispatcher). */
export interface NoReplyEnd {
  kind: 'return' | 'end';
  /** What the thrown error says: -32601, -32602 `Unknown tool`, or -32603 for a request left without a result. */
  reason: 'unknown-method' | 'unknown-tool' | 'no-result';
  node: t.Node;
  mod: ModuleUnit;
  fn: FunctionNode;
}

/** Code only initialize / ping / notifications/initialized reach: the SDK answers those itself. */
export interface RemovableBranch {
  kind: 'case' | 'if' | 'property' | 'statement' | 'element';
  node: t.Node;
  mod: ModuleUnit;
}

/** Logging the SDK rewrite drops: code only an SDK-owned method ran, or a log line inside a writer helper the rewrite removes. */
export interface DroppedCode {
  mod: ModuleUnit;
  line: number;
  /** The statement, shortened to one line. */
  text: string;
  /** The SDK-owned method that alone ran it (null: it logs inside a writer helper). */
  method: string | null;
  /** The writer helper it logs in, as its callers name it (`send`, `this.#send`); null for SDK-owned code. */
  writer: string | null;
}

export interface InitializeInfo {
  serverInfo: Val;
  capabilities: Val | null;
  instructions: Val | null;
  /** The same fields as written in the reply (a named constant stays a name). */
  written: Record<'serverInfo' | 'capabilities' | 'instructions', { node: t.Node; frame: Frame | null; mod: ModuleUnit } | null>;
}

/** Where the SDK server is created and connected: the statement that started the stdin loop. */
export interface Anchor {
  statement: t.Statement;
  mod: ModuleUnit;
  fn: FunctionNode | null;
  /** `await` is allowed there (an async function, or the top level of an ES module). */
  async: boolean;
}

export interface SdkShape {
  anchor: Anchor;
  /** What the handlers read of the message besides method and params: `id` and `jsonrpc` are then handed back to the dispatcher. */
  reads: { id: boolean; jsonrpc: boolean };
  /** What becomes a return or throw, and the branches that go: a reply channel used only there is spent. */
  replaced: t.Node[];
  /** For an inline dispatch: the name of the handler made from the code after the parse. */
  handlerName: string;
  /** The server's construction, from the initialize reply: each field's ways to be written, tried in order. */
  construct: {
    serverInfo: ValueRef[];
    capabilities: ValueRef[] | null;
    /** The keys of the original capabilities object, when known. */
    capabilityKeys: string[] | null;
    instructions: ValueRef[] | null;
  };
  consumer: StdinConsumer;
  /** Statements next to the loop that only serve stdin (`setEncoding`, `rl.on('close', ...)`): removed with it. */
  inputStatements: t.Statement[];
  /** Client notifications the server acts on (not initialized): each gets a notification handler. */
  notifications: string[];
  /** Inline dispatch inside the parse's `try`: the catch's writes, which become a rethrow in the handler. */
  catchWrites: CatchWrite[];
  dispatcher: Dispatcher;
  sites: ReplySite[];
  returnedCalls: ReturnedCall[];
  /** MCP request methods to register with their schema. */
  registrations: string[];
  /** Methods outside MCP that the server answers: routed through the fallback handler. */
  customMethods: string[];
  fallback: boolean;
  /** Custom methods come from a table filled at run time: the fallback cannot list them. */
  runtimeMethods: boolean;
  noReplyEnds: NoReplyEnd[];
  removableBranches: RemovableBranch[];
  /** Logging only initialize, ping or notifications/initialized ran (it goes with their branches), and logging inside the writer helpers the rewrite removes: said in the header. */
  dropped: DroppedCode[];
  initialize: InitializeInfo;
  usesMessageId: boolean;
  /** resources/read answers contents without their `uri`: the registration adds the requested one. */
  readsWithoutUri: boolean;
  /**
   * Messages went through a promise queue and the handling shares state across an await: the handlers
   * are run one at a time, in arrival order, as the queue ran them (the SDK alone runs them concurrently).
   */
  oneAtATime: boolean;
  /** Each module's protocol plumbing (detect/plumbing.ts): names the prune removes once nothing calls them. */
  plumbing: ReadonlyMap<ModuleUnit, ReadonlySet<string>>;
}

export interface ServerModel {
  facts: FileFacts;
  framing: 'ndjson' | 'content-length';
  ignored: boolean;
  /** Line of the stdin loop. */
  line: number;
  /** Methods the server answers requests for. */
  methods: string[];
  /** Why the SDK rewrite cannot keep behaviour (empty when it can). */
  blockers: Blocker[];
  sdk: SdkShape | null;
  /** One line for the diff header: what the server is. */
  summary: string;
  /** What the SDK at the boundary needs, or why it cannot be put there. */
  boundary: BoundaryFacts;
  /** What the envelope fallback needs: where messages are parsed, and every method answered (null: not known). */
  envelope: {
    parses: { call: t.CallExpression; mod: ModuleUnit; receipt: ParseReceipt }[];
    methods: string[] | null;
    /** Where a request for an unknown method ends without a reply (only when `methods` is not known). */
    unansweredEnds: NoReplyEnd[];
    /**
     * The server answers every request for an unknown method with an error that is -32601 once the helper
     * has corrected it (a generic code on a message that says the method is unknown): `methods` is then
     * not given, so that the server's own answer, and its message, stand.
     */
    answersUnknownMethods: boolean;
  };
}

/** The writes of one catch clause around an inline dispatch. */
export interface CatchWrite {
  clause: t.CatchClause;
  statements: t.Statement[];
}

/**
 * How the envelope receives one message parse (detect/receive.ts): where its error is caught (in its
 * function or by a caller), as it is; with a guard after the statement that stores it (`target`, left by
 * `exit`); received into a name of its own before the call it is an argument of (`text`: the parsed
 * text); or, uncaught with no safe place for a guard, answered with -32700 and still thrown.
 */
export type ParseReceipt =
  | { kind: 'try' }
  | { kind: 'guard'; statement: t.Statement; target: string; exit: string }
  | { kind: 'hoisted'; statement: t.Statement; text: t.Node; exit: string }
  | { kind: 'unguarded' };

/**
 * The SDK at the boundary needs only where messages come in and where replies go out: every place the
 * program names the process's stdin (the SDK hands requests to the server there), every write to fd 1
 * and every other place it names stdout (what the server writes there is routed to its request), and,
 * where the analysis found them, the parses of incoming messages (the handling of each starts there).
 */
export type BoundaryFacts =
  | {
      available: true;
      stdin: StdioRef[];
      /** The places that name stdout; those inside a write in `sinks` go with that write. */
      stdout: StdioRef[];
      sinks: SinkCall[];
      parses: { call: t.CallExpression; mod: ModuleUnit }[];
      /** The MCP methods the server is seen to answer: its capabilities when it does not say them itself. */
      methods: string[];
      /**
       * When the analysis knows every method the server answers: those and every method-like string the
       * program names (never answer a method the server names); the boundary answers any other with
       * -32601 itself. Null when the list is open (a computed dispatch, a table filled at run time).
       */
      known: string[] | null;
      /**
       * When the list is open and the program builds no names: the namespaced methods outside MCP's
       * namespaces it names; the boundary answers any other such method -32601 (no code can answer it).
       */
      namespaced: string[] | null;
      /**
       * When the program looks members up by names it builds from text (`this['handle_' + m.replace('/', '_')]`)
       * in ways that keep letters in order: the letters and digits, lower-cased, of every method such a
       * name can reach; the boundary refuses, as with `namespaced`, a method none reaches.
       */
      stems: string[] | null;
    }
  | { available: false; reason: EnvelopeReason; detail: string; line: number };
