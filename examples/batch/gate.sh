#!/usr/bin/env bash
# gate.sh -- fail a batch job while an MCP migration is pending, never mistaking npm's own failure for it.
#
# Usage: gate.sh [DIR]     (default: the current directory; run it in a fresh checkout of one repository)
#
# `npx --yes mcp-migrate --check .` exits 1 when a migration is pending, and npx exits 1 too when npm
# cannot install mcp-migrate (a version that does not exist, the registry unreachable, no credentials):
# a gate on that exit code reports "migration pending" for a repository nobody looked at. This script
# installs mcp-migrate first, on its own, then runs the installed command with a JSON report, and believes
# an exit code only when the report (which only mcp-migrate writes) carries the same one.
#
# Environment:
#   MCP_MIGRATE_PACKAGE  what npm installs (default: mcp-migrate@0.1.0); until mcp-migrate is published,
#                        the path or URL of a tarball built with `npm pack`
#
# Exit status, with one line on stdout saying which (mcp-migrate's own output goes to stderr):
#   0 nothing pending           1 a migration is pending      2 usage error (see stderr)
#   3 some files could not be processed (named on stderr)
#   4 mcp-migrate could not be installed (npm's error is on stderr): nothing was checked
#   5 mcp-migrate did not finish (no report: it crashed or was killed)
set -uo pipefail

dir=${1:-.}
package=${MCP_MIGRATE_PACKAGE:-mcp-migrate@0.1.0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. Install, alone: whatever goes wrong here is npm's, and says so.
if ! npm install --prefix "$work" --no-audit --no-fund --no-package-lock --loglevel=error "$package" >&2; then
  echo "could not install $package (npm's error is above): nothing was checked"
  exit 4
fi
bin="$work/node_modules/.bin/mcp-migrate"
if [ ! -x "$bin" ]; then
  echo "could not install $package: it has no mcp-migrate command: nothing was checked"
  exit 4
fi

# 2. Check. stdin from /dev/null: never a terminal, so nothing waits for an answer.
report="$work/mcp-migrate.json"
(cd "$dir" && "$bin" --check --report json --output "$report" .) < /dev/null >&2
code=$?
if [ "$code" -eq 2 ]; then
  echo "mcp-migrate refused to run (usage error, see above)"
  exit 2
fi
if [ ! -s "$report" ]; then
  echo "mcp-migrate did not finish (exit code $code, no report)"
  exit 5
fi

# 3. The report says what happened; its exitCode must be the one the command returned.
read -r reported pending errors < <(node -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  console.log(r.exitCode, r.totals.pending, r.totals.errors);' "$report") || true
if [ "${reported:-}" != "$code" ]; then
  echo "mcp-migrate exited $code but its report says ${reported:-nothing}"
  exit 5
fi
case "$code" in
  0) echo "nothing pending" ;;
  1) echo "migration pending: $pending file(s); run mcp-migrate in this repository and commit the result" ;;
  3) echo "$errors file(s) could not be processed (named above)" ;;
  *) echo "mcp-migrate exited $code" ;;
esac
exit "$code"
