#!/usr/bin/env bash
# runner-step.sh -- the step a campaign runner runs in each repository it has checked out
# (multi-gitter run, turbolift foreach, a CI job of your own): mcp-migrate --yes in the current directory,
# with an exit status that tells the runner whether to keep the change.
#
# Usage: runner-step.sh [DIR]      (DIR: what to migrate, default ".")
#
# Exit status, for runners that open a pull request on exit 0 with changes and skip (or record a
# failure for) any other exit:
#   0  mcp-migrate exited 0 (migrated, or nothing to do), or it wrote something and also exited 1 (a
#      rewrite the proof refused) or 3 (a file it could not process): what was written is kept, and the
#      report names what was not
#   1  nothing was written and a migration is still pending (refused or not proven): worth a look
#   2  usage error (of mcp-migrate or of this script)
#   3  nothing was written and some files could not be processed
#
# Environment:
#   MCP_MIGRATE         the command to run (default: "npx --yes mcp-migrate"), e.g. "node /path/to/bin/mcp-migrate.js"
#   MCP_MIGRATE_REPORT  where the markdown report goes, for a pull request's body (default: a file in the
#                       temp directory, named on stderr; never inside the repository, which would commit it)
#
# The human text of mcp-migrate goes to stderr. Nothing is committed or pushed: the runner does that.
set -uo pipefail

if [ $# -gt 1 ] || [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//' >&2
  [ "${1:-}" = -h ] || [ "${1:-}" = --help ] && exit 0
  exit 2
fi
target=${1:-.}
report=${MCP_MIGRATE_REPORT:-$(mktemp "${TMPDIR:-/tmp}/mcp-migrate-report.XXXXXX")}
read -r -a command <<< "${MCP_MIGRATE:-npx --yes mcp-migrate}"

# stdin closed: mcp-migrate never waits for an answer; with --output the human text goes to stdout, sent on to stderr
"${command[@]}" --yes --report markdown --output "$report" "$target" < /dev/null >&2
code=$?
echo "runner-step.sh: mcp-migrate exited $code; the report is in $report" >&2

changed() {
  [ -n "$(git -C "$target" status --porcelain 2> /dev/null)" ]
}

case "$code" in
  0) exit 0 ;;
  1 | 3)
    if changed; then
      echo "runner-step.sh: keeping what was written (exit $code: the report names what was not)" >&2
      exit 0
    fi
    exit "$code"
    ;;
  *) exit "$code" ;;
esac
