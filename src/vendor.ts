// The SDK parts the proof needs, as the build bundles them into dist/vendor/ (scripts/build/bundle-vendor.mjs):
// the packages lent to a migrated server whose project has none installed, and the v2 Client the
// 2026-07-28 era check connects with. The installed tool depends on no SDK package (they are
// devDependencies, bundled at build time), so a checkout runs the proof once `npm run build` has run.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { SdkTarget } from './model/sdk-targets.js';
import { getToolHome } from './tool-home.js';

function getVendorDir(): string | null {
  const home = getToolHome();
  return home === null ? null : join(home.root, 'dist', 'vendor');
}

/** The folder of the package `name` to lend to a migrated server on SDK `sdk`, or null when the tool has none. */
export function findLentPackage(sdk: SdkTarget, name: string): string | null {
  const vendor = getVendorDir();
  return vendor !== null && existsSync(join(vendor, sdk, name, 'package.json')) ? join(vendor, sdk, name) : null;
}

type ClientModule = typeof import('@modelcontextprotocol/client');

/** The v2 client module (its `Client`); throws when the tool has not been built. */
export function loadClient(): ClientModule {
  const vendor = getVendorDir();
  const file = vendor === null ? null : join(vendor, 'client-v2.cjs');
  if (file === null || !existsSync(file)) throw new Error(`mcp-migrate has no ${file ?? 'dist/vendor/ of its own'}: run \`npm run build\` in its folder`);
  return createRequire(file)(file) as ClientModule;
}
