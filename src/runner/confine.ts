// Where a run may write. The scanned tree is not trusted to stay where it seems: a directory or file of
// it may be a symbolic link out of it (`lib -> ../outside-lib`, `package.json -> ~/.npmrc`), an import may
// climb out of it (`../../shared/dispatch.js`). Every path the run writes (a migrated file, a module its
// rewrite changes, the envelope helper, a package.json, a temp file beside any of them) is resolved with
// every symbolic link followed, and must lie inside each of its bounds, also resolved:
//   - a source file or companion: the scanned root and, inside a git work tree, the repository (the
//     scanned root's, and the one holding the file);
//   - a package.json: the repository (outside git, the scanned root): a package above the scanned
//     folder is the package of the files in it, one above the repository is someone else's.
// Otherwise the write is refused with the reason (the file is reported; nothing is written).
import { realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isInside, resolveGitRoot } from './discover.js';

/** A real directory a write must lie inside, and what it is (for the reason a write is refused). */
export interface Bound {
  dir: string;
  what: 'the scanned folder' | 'the repository';
}

/** The bounds of each kind of file. */
export interface WriteBounds {
  sources: Bound[];
  manifests: Bound[];
}

/** The bounds of a run whose scanned root is `root`. */
export async function resolveWriteBounds(root: string): Promise<WriteBounds> {
  const scanned: Bound = { dir: await resolveReal(root), what: 'the scanned folder' };
  const gitRoot = await resolveGitRoot(root);
  if (gitRoot === null) return { sources: [scanned], manifests: [scanned] };
  const repository: Bound = { dir: await resolveReal(gitRoot), what: 'the repository' };
  return { sources: [scanned, repository], manifests: [repository] };
}

/**
 * `path` with every symbolic link resolved; for a path that does not exist yet (a new helper module),
 * its closest existing ancestor resolved and the rest appended.
 */
export async function resolveReal(path: string): Promise<string> {
  const rest: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    try {
      const real = await realpath(current);
      return rest.length === 0 ? real : join(real, ...rest.reverse());
    } catch {
      if (dirname(current) === current) return path;
      rest.push(basename(current));
    }
  }
}

/** Why the run may not write `path` (one line, without the path), or null when it lies inside every bound. */
export async function getWriteRefusal(path: string, bounds: readonly Bound[]): Promise<string | null> {
  if (bounds.length === 0) return null;
  const real = await resolveReal(path);
  // Also the repository holding the path itself (a repository inside a scanned folder that is not one).
  const own = await resolveGitRoot(dirname(path));
  const all = own === null ? bounds : [...bounds, { dir: await resolveReal(own), what: 'the repository' as const }];
  const outside = all.find((bound) => !isInside(bound.dir, real));
  if (outside === undefined) return null;
  const via = real === path ? '' : `resolves to ${real}, `;
  return `${via}outside ${outside.what} (${outside.dir}): not written`;
}
