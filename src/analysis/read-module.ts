// How the analysis reads the other files of a program (its modules, the tsconfig and package.json files
// its import aliases come from). The runner hands in a reader of the disk (runner/read-module.ts).

/** Reads another file of the program: its text, or null when it does not exist or cannot be read. */
export type ReadModule = (path: string) => string | null;
