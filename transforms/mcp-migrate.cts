// The jscodeshift entry point as jscodeshift runs it by default:
//   npx jscodeshift -t node_modules/mcp-migrate/dist/transforms/mcp-migrate.cjs src/ --sdk=v1
// jscodeshift loads a transform with require() through @babel/register, which compiles the file to
// CommonJS; the package is ESM (`"type": "module"`), so its .js output read that way fails with
// "exports is not defined in ES module scope" (and jscodeshift then reports 0 files, exit 0). This
// CommonJS file is the adapter: it loads the ESM transform with the native import() (hidden from Babel,
// which would turn a visible import() back into require()) and hands each file to it. jscodeshift awaits
// a transform that returns a promise.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface EsmTransform {
  default: (file: unknown, api: unknown, options: unknown) => string | undefined;
}

// `new Function`: Babel cannot see the import() in it, and Node runs it natively.
const importEsm = new Function('url', 'return import(url)') as (url: string) => Promise<EsmTransform>;
let loaded: Promise<EsmTransform> | null = null;

async function transform(file: unknown, api: unknown, options: unknown): Promise<string | undefined> {
  loaded ??= importEsm(pathToFileURL(join(__dirname, 'mcp-migrate.js')).href);
  return (await loaded).default(file, api, options);
}

export = transform;
