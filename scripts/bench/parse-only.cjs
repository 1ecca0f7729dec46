// jscodeshift transform for the benchmark: parse each file with the configured parser and change nothing.
// (Returning undefined makes jscodeshift count the file as "skipped" and never write it.)
module.exports = (file, api) => { api.jscodeshift(file.source); return undefined; };
