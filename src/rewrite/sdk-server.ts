// Where the stdin loop was, the SDK server (./sdk.ts): created with the original serverInfo, capabilities and
// instructions, each MCP method registered with the dispatcher's handler (and the fallback for custom
// methods), connected to its stdio transport; the imports it needs.
import type { SdkTarget } from '../model/types.js';
import { getMemberName } from '../analysis/ast.js';
import { type ModuleUnit } from '../analysis/program.js';
import { MCP_NOTIFICATIONS, MCP_REQUESTS, type Capability, isMcpNotification, isMcpRequestMethod } from '../model/mcp-methods.js';
import { SDK_TARGETS } from '../model/sdk-targets.js';
import { hasTopImports, writesImports } from './imports.js';
import { quoted, semi, type CodeStyle } from './style.js';
import { isTypeScriptPath } from '../parse.js';
import { buildThrow } from './sdk-replies.js';
import type { Ctx } from './sdk-context.js';


interface Names {
  server: string;
  transport: string;
  /** The SDK's classes as this module names them: `Server`, or `SdkServer` where the module declares a `Server` of its own. */
  serverClass: string;
  transportClass: string;
  /** The wrapper that runs handlers one at a time, and the promise it chains them on (SdkShape.oneAtATime). */
  oneAtATime: string;
  handling: string;
}

/** `server` and `transport` (and the SDK classes' own names), unless the module already uses those names for something. */
export function pickNames(mod: ModuleUnit): Names {
  const taken = new Set<string>();
  for (const scope of mod.index.scopes.values()) for (const name of scope.keys()) taken.add(name);
  const pick = (options: string[]): string => options.find((n) => !taken.has(n)) ?? `${options[0]}_${Math.abs(hash(mod.path)) % 1000}`;
  return {
    server: pick(['server', 'mcpServer', 'sdkServer']),
    transport: pick(['transport', 'stdioTransport', 'sdkTransport']),
    // `class Server { ... }` of the user's own: the SDK's is imported under another name
    serverClass: pick(['Server', 'SdkServer', 'McpSdkServer']),
    transportClass: pick(['StdioServerTransport', 'SdkStdioServerTransport']),
    oneAtATime: pick(['oneAtATime', 'inArrivalOrder', 'serialHandler']),
    handling: pick(['handling', 'handlingQueue', 'previousHandling']),
  };
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return h;
}

// const server = new Server({ name, version }, { capabilities, instructions });
// server.setRequestHandler(ListToolsRequestSchema, handleMessage);
// server.fallbackRequestHandler = handleMessage;
// const transport = new StdioServerTransport();
// transport.onerror = ...;   (v1: answers bad JSON with -32700)
// await server.connect(transport);
export function buildServerSetup(ctx: Ctx, style: CodeStyle, indent: string, names: Names): string {
  const { shape, sdk } = ctx;
  const s = semi(style);
  const unit = style.indent;
  // TypeScript: what the dispatcher returns is typed by the original (often `unknown`): the SDK wants a ServerResult
  const typed = isTypeScriptPath(shape.anchor.mod.path);
  const result = (call: string): string => (typed ? `(await ${call}) as ${getResultType(sdk, null)}` : call);
  const eol = style.eol;
  const q = (v: string) => quoted(style, v);
  const lines: string[] = [];
  const needed = getNeededCapabilities(shape.registrations);
  const construct = shape.construct;
  const capabilities = construct.capabilities ?? `{ ${needed.map((c) => `${c}: {}`).join(', ')} }`;
  const options = [`capabilities: ${capabilities}`];
  if (construct.instructions) options.push(`instructions: ${construct.instructions}`);
  const optionsText = options.join(', ').length > 60 || options.some((o) => o.includes('\n')) ? `{${eol}${options.map((o) => `${indent}${unit}${o}`).join(`,${eol}`)}${style.trailingComma ? ',' : ''}${eol}${indent}}` : `{ ${options.join(', ')} }`;
  lines.push(`${indent}const ${names.server} = new ${names.serverClass}(${construct.serverInfo}, ${optionsText})${s}`);
  const missing = construct.capabilities === null ? [] : construct.capabilityKeys === null ? needed : needed.filter((c) => !construct.capabilityKeys!.includes(c));
  if (missing.length > 0) {
    lines.push(`${indent}${names.server}.registerCapabilities({ ${missing.map((c) => `${c}: {}`).join(', ')} })${s}`);
    ctx.notes.push(`capabilities ${missing.join(', ')} added: the server answers those methods, so the SDK must advertise them`);
  }
  // the original handled one message at a time (a promise queue): every handler waits for the one before
  const serial = (handler: string): string => (shape.oneAtATime ? `${names.oneAtATime}(${handler})` : handler);
  const [open, close] = shape.oneAtATime ? [`${names.oneAtATime}(`, ')'] : ['', ''];
  if (shape.oneAtATime) {
    lines.push(...buildOneAtATime(style, indent, names, typed));
    ctx.notes.push('messages are still handled one at a time, in the order they arrive, as the original\'s promise queue did (the SDK would run handlers concurrently)');
  }
  for (const method of shape.registrations) {
    const key = sdk === 'v2' ? q(method) : MCP_REQUESTS[method as keyof typeof MCP_REQUESTS].schema;
    if (method === 'resources/read' && shape.readsWithoutUri) {
      // server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      //   const result = await handleMessage(request);
      //   return { ...result, contents: result.contents.map((content) => ({ uri: request.params.uri, ...content })) };
      // });
      const arrow = /^\(request(?:, extra)?\) => ([\s\S]*)$/.exec(shape.handler);
      const call = arrow ? arrow[1]! : `${shape.handler}(request, extra)`;
      lines.push(
        `${indent}${names.server}.setRequestHandler(${key}, ${open}async (request, extra) => {`,
        `${indent}${unit}const result = ${typed ? `(await ${call}) as { contents: object[] }` : `await ${call}`}${s}`,
        `${indent}${unit}// each content names the resource it belongs to (MCP requires it; the original left it out)`,
        `${indent}${unit}return { ...result, contents: result.contents.map((content) => ({ uri: request.params.uri, ...content })) }${typed ? ` as ${getResultType(sdk, method)}` : ''}${s}`,
        `${indent}}${close})${s}`,
      );
      ctx.fixes.push('resources/read contents carry the uri they belong to (clients reject them without it)');
      continue;
    }
    lines.push(`${indent}${names.server}.setRequestHandler(${key}, ${serial(typed ? asServerResult(shape.handler, getResultType(sdk, method)) : shape.handler)})${s}`);
  }
  if (shape.fallback && shape.customMethods.length > 0 && !shape.runtimeMethods) {
    // server.fallbackRequestHandler = async (request, extra) => {
    //   if (!['db/stats'].includes(request.method)) throw Object.assign(new Error('Method not found'), { code: -32601 });
    //   return handleMessage(request);
    // };
    const arrow = /^\((request(?:, extra)?)\) => ([\s\S]*)$/.exec(shape.handler);
    const params = arrow ? arrow[1]! : 'request, extra';
    const call = arrow ? arrow[2]! : `${shape.handler}(request, extra)`;
    const list = `[${shape.customMethods.map((m) => q(m)).join(', ')}]`;
    lines.push(
      `${indent}${names.server}.fallbackRequestHandler = ${open}async (${params}) => {`,
      `${indent}${unit}// the server's own methods; any other method is answered -32601, as JSON-RPC requires`,
      `${indent}${unit}if (!${list}.includes(request.method)) ${buildThrow(style, sdk, '-32601', q('Method not found'), null)}`,
      `${indent}${unit}return ${result(call)}${s}`,
      `${indent}}${close}${s}`,
    );
    ctx.notes.push(`custom methods ${shape.customMethods.join(', ')} keep answering through fallbackRequestHandler`);
  } else if (shape.fallback) {
    lines.push(`${indent}${names.server}.fallbackRequestHandler = ${serial(typed ? asServerResult(shape.handler, getResultType(sdk, null)) : shape.handler)}${s}`);
    if (shape.customMethods.length > 0) ctx.notes.push(`custom methods ${shape.customMethods.join(', ')} keep answering through fallbackRequestHandler`);
  }
  // server.setNotificationHandler(CancelledNotificationSchema, handleMessage);   (the server's own handling)
  // server.fallbackNotificationHandler = async (notification) => { if ([...].includes(notification.method)) await ... };
  if (shape.notificationHandler !== null && shape.notifications.length > 0) {
    const call = (param: string): string => {
      const arrow = /^\((\w+)(?:, extra)?\) => ([\s\S]*)$/.exec(shape.notificationHandler!);
      return arrow ? arrow[2]!.replace(new RegExp(`\\b${arrow[1]}\\b`, 'g'), param) : `${shape.notificationHandler}(${param})`;
    };
    // a notification handler returns nothing: TypeScript wants exactly that
    const handlerFor = typed ? `async (notification) => {${eol}${indent}${unit}await ${call('notification')}${s}${eol}${indent}}` : shape.notificationHandler;
    const custom: string[] = [];
    for (const method of shape.notifications) {
      if (!isMcpNotification(method)) {
        custom.push(method);
        continue;
      }
      const key = sdk === 'v2' ? q(method) : MCP_NOTIFICATIONS[method].schema;
      lines.push(`${indent}${names.server}.setNotificationHandler(${key}, ${serial(handlerFor)})${s}`);
    }
    if (custom.length > 0) {
      lines.push(
        `${indent}${names.server}.fallbackNotificationHandler = ${open}async (notification) => {`,
        `${indent}${unit}if (${`[${custom.map((m) => q(m)).join(', ')}]`}.includes(notification.method)) await ${call('notification')}${s}`,
        `${indent}}${close}${s}`,
      );
    }
    ctx.notes.push(`notifications ${shape.notifications.join(', ')} keep reaching the server's own code through a notification handler`);
  }
  if (sdk === 'v2') {
    // serveStdio(() => { const server = ...; return server; }): one factory serves 2025-era and 2026-07-28 clients
    // (its transport ignores a line that is not JSON: listed in the header as a wire change, BAD_JSON_IGNORED)
    const body = lines.map((l) => l.split(eol).map((part) => unit + part).join(eol).replace(/\(request, extra\)/g, '(request, ctx)').replace(/extra\.requestId/g, 'ctx.mcpReq.id'));
    return [`${indent}serveStdio(() => {`, ...body, `${indent}${unit}return ${names.server}${s}`, `${indent}})${s}`].join(eol);
  }
  const t = names.transport;
  lines.push(`${indent}const ${t} = new ${names.transportClass}()${s}`);
  if (sdk === 'v1') {
    const ts = isTypeScriptPath(shape.anchor.mod.path);
    lines.push(
      `${indent}// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.`,
      `${indent}${t}.onerror = (error) => {`,
      `${indent}${unit}if (error instanceof SyntaxError) {`,
      ...(ts ? [`${indent}${unit}${unit}// @ts-expect-error -- the SDK message type has no null id, which JSON-RPC 2.0 requires here`] : []),
      `${indent}${unit}${unit}void ${t}.send({ jsonrpc: ${q('2.0')}, id: null, error: { code: -32700, message: ${q('Parse error')} } })${s}`,
      `${indent}${unit}}`,
      `${indent}}${s}`,
    );
  }
  // top-level await only in an ES module; inside a function only when it is async
  const canAwait = shape.anchor.fn ? shape.anchor.async : ctx.moduleKind(shape.anchor.mod) === 'esm';
  if (canAwait) lines.push(`${indent}await ${names.server}.connect(${t})${s}`);
  else {
    lines.push(`${indent}${names.server}.connect(${t}).catch((error) => {`, `${indent}${unit}console.error(error)${s}`, `${indent}${unit}process.exit(1)${s}`, `${indent}})${s}`);
  }
  return lines.join(eol);
}

// let handling = Promise.resolve();
// const oneAtATime = (handler) => (...args) => {
//   const run = handling.then(() => handler(...args));
//   handling = run.catch(() => undefined);
//   return run;
// };
function buildOneAtATime(style: CodeStyle, indent: string, names: Names, typed: boolean): string[] {
  const s = semi(style);
  const unit = style.indent;
  const { oneAtATime, handling } = names;
  return [
    `${indent}// one message at a time, in the order they arrive, as the original's promise queue handled them`,
    `${indent}let ${handling}${typed ? ': Promise<unknown>' : ''} = Promise.resolve()${s}`,
    typed
      ? `${indent}const ${oneAtATime} = <A extends unknown[], R,>(handler: (...args: A) => R) => (...args: A): Promise<Awaited<R>> => {`
      : `${indent}const ${oneAtATime} = (handler) => (...args) => {`,
    `${indent}${unit}const run = ${handling}.then(() => handler(...args))${typed ? ' as Promise<Awaited<R>>' : ''}${s}`,
    `${indent}${unit}${handling} = run.catch(() => undefined)${s}`,
    `${indent}${unit}return run${s}`,
    `${indent}}${s}`,
  ];
}

function getNeededCapabilities(methods: string[]): Capability[] {
  const out: Capability[] = [];
  for (const method of methods) {
    if (!isMcpRequestMethod(method)) continue;
    const capability = MCP_REQUESTS[method].capability;
    if (!out.includes(capability)) out.push(capability);
  }
  return out;
}

export function buildImports(ctx: Ctx, style: CodeStyle, mod: ModuleUnit, names: Names): string {
  const s = semi(style);
  const q = (v: string) => quoted(style, v);
  const useImport = writesImports(ctx.moduleKind(mod), mod);
  const line = (list: string[], from: string): string => {
    if (useImport) return `import { ${list.join(', ')} } from ${q(from)}${s}`;
    // require() brings values; a type comes with `import type` (TypeScript only)
    const types = list.filter((n) => n.startsWith('type ')).map((n) => n.slice(5));
    const values = list.filter((n) => !n.startsWith('type ')).map(asDestructured);
    return [...(types.length > 0 ? [`import type { ${types.join(', ')} } from ${q(from)}${s}`] : []), ...(values.length > 0 ? [`const { ${values.join(', ')} } = require(${q(from)})${s}`] : [])].join(style.eol);
  };
  const lines: string[] = [];
  if (/\.cts$/i.test(mod.path)) return buildCtsImports(ctx, style, mod, names);
  for (const [list, from] of getSdkImports(ctx, names)) lines.push(line(list, from));
  void names;
  const eol = style.eol;
  return lines.join(eol) + eol + (hasTopImports(mod) ? '' : eol);
}

// import { createRequire } from 'node:module';
// const sdkRequire = createRequire(__filename);
// const { Server } = sdkRequire('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js');
// tsx runs a .cts file through Node's ESM loader, whose require() cannot load the SDK's CommonJS build
// (its circular requires fail on Node 20); a require made with createRequire is Node's own.
function buildCtsImports(ctx: Ctx, style: CodeStyle, mod: ModuleUnit, names: Names): string {
  const s = semi(style);
  const q = (v: string) => quoted(style, v);
  const taken = new Set<string>();
  for (const scope of mod.index.scopes.values()) for (const name of scope.keys()) taken.add(name);
  const req = taken.has('sdkRequire') ? 'mcpSdkRequire' : 'sdkRequire';
  const load = (list: string[], from: string): string => `const { ${list.join(', ')} } = ${req}(${q(from)}) as typeof import(${q(from)})${s}`;
  const lines = [
    `import { createRequire } from ${q('node:module')}${s}`,
    `// tsx loads a .cts file through Node's ESM loader, whose require() cannot load the SDK's CommonJS build: use Node's own`,
    `const ${req} = createRequire(__filename)${s}`,
    ...getSdkImports(ctx, names).flatMap(([list, from]) => {
      // types are imported as types (erased); values come through Node's require
      const types = list.filter((n) => n.startsWith('type ')).map((n) => n.slice(5));
      const values = list.filter((n) => !n.startsWith('type ')).map(asDestructured);
      return [...(types.length > 0 ? [`import type { ${types.join(', ')} } from ${q(from)}${s}`] : []), ...(values.length > 0 ? [load(values, from)] : [])];
    }),
  ];
  return lines.join(style.eol) + style.eol + (hasTopImports(mod) ? '' : style.eol);
}

/**
 * What the rewrite imports, by module:
 *   v1: Server; StdioServerTransport; the request schemas it registers
 *   v2: Server (and ProtocolError when it throws one); serveStdio, which serves both protocol eras
 */
function getSdkImports(ctx: Ctx, local: Names): [string[], string][] {
  const target = SDK_TARGETS[ctx.sdk];
  const server = local.serverClass === 'Server' ? 'Server' : `Server as ${local.serverClass}`;
  if (ctx.sdk === 'v2') {
    const names = usesProtocolError(ctx) ? ['ProtocolError', server] : [server];
    if (isTypeScriptPath(ctx.shape.anchor.mod.path)) {
      const types = new Set(ctx.shape.registrations.map((m) => getResultTypeName(m)));
      if (ctx.shape.fallback) types.add(getResultTypeName(null));
      names.push(...[...types].sort().map((type) => `type ${type}`));
    }
    return [[names, target.serverModule], [['serveStdio'], target.stdioModule]];
  }
  const transport = local.transportClass === 'StdioServerTransport' ? 'StdioServerTransport' : `StdioServerTransport as ${local.transportClass}`;
  const out: [string[], string][] = [[[server], target.serverModule], [[transport], target.stdioModule]];
  const schemas: string[] = [
    ...ctx.shape.registrations.map((m) => MCP_REQUESTS[m as keyof typeof MCP_REQUESTS].schema),
    ...ctx.shape.notifications.filter(isMcpNotification).map((m) => MCP_NOTIFICATIONS[m].schema),
  ].sort();
  if (isTypeScriptPath(ctx.shape.anchor.mod.path)) schemas.push('type ServerResult');
  if (schemas.length > 0) out.push([schemas, target.typesModule!]);
  return out;
}

/** An import specifier as a destructuring property: `Server as SdkServer` -> `Server: SdkServer`. */
function asDestructured(specifier: string): string {
  return specifier.replace(' as ', ': ');
}


function usesProtocolError(ctx: Ctx): boolean {
  return ctx.shape.sites.some((s) => s.reply.kind === 'error' || s.reply.kind === 'error-held') || ctx.shape.noReplyEnds.length > 0;
}

/** The modules where an error reply becomes a thrown ProtocolError (v2). */
export function getThrowingModules(ctx: Ctx): Set<ModuleUnit> {
  const mods = new Set<ModuleUnit>();
  for (const site of ctx.shape.sites) if (site.reply.kind === 'error' || (site.reply.kind === 'error-held' && site.reply.shape !== 'computed')) mods.add(site.mod);
  for (const end of ctx.shape.noReplyEnds) mods.add(end.mod);
  return mods;
}

/** Whether some scope of the module declares `name`. */
export function declaresName(mod: ModuleUnit, name: string): boolean {
  for (const scope of mod.index.scopes.values()) if (scope.has(name)) return true;
  return false;
}

export { getMemberName };

/** `(request, extra) => handle(...)` -> `async (request, extra) => (await handle(...)) as ServerResult` (TypeScript). */
export function asServerResult(handler: string, type = 'ServerResult'): string {
  const arrow = /^(\([^)]*\)) => ([\s\S]*)$/.exec(handler);
  if (!arrow) return `async (request, extra) => (await ${handler}(request, extra)) as ${type}`;
  return `async ${arrow[1]} => (await ${arrow[2]}) as ${type}`;
}

/**
 * The type a TypeScript handler's result is cast to: v1's `ServerResult` union; v2 types each method's
 * handler, so the method's own result type (`ListToolsResult`), and `Result` for the fallback.
 */
export function getResultType(sdk: SdkTarget, method: string | null): string {
  if (sdk === 'v1') return 'ServerResult';
  // (through unknown: the dispatcher's own result type, a union of literals, need not overlap the SDK's)
  return `unknown as ${getResultTypeName(method)}`;
}

export function getResultTypeName(method: string | null): string {
  return method !== null && isMcpRequestMethod(method) ? MCP_REQUESTS[method].result : 'Result';
}
