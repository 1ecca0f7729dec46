#!/usr/bin/env bash
# run-many.sh -- run mcp-migrate in a fresh copy of each of many repositories and print a table.
#
# Usage: run-many.sh [-o DIR] [-f LIST] [-b BRANCH] [REPO...]
#   REPO       a git URL (https://..., git@host:org/repo.git, ssh://..., file://...) or a local directory.
#              A local git repository is cloned (its committed state: uncommitted work is not taken);
#              a local directory that is not a repository root is copied.
#   -f LIST    read more REPOs from LIST, one per line (blank lines and "#" comments are skipped); "-" is stdin
#   -o DIR     where the copies and reports go (default: ./mcp-migrate-batch); must not exist yet
#   -b BRANCH  in each git copy where mcp-migrate wrote something and exited 0, commit the change on a new
#              branch BRANCH (nothing is pushed: push and open the pull requests with your own tooling)
#
# Environment:
#   MCP_MIGRATE       the command to run (default: "npx --yes mcp-migrate"), e.g. "node /path/to/bin/mcp-migrate.js"
#   MCP_MIGRATE_ARGS  its arguments before the path "." (default: "--yes --report json")
#
# For the N-th repository, DIR holds NNN-<name>/ (the copy, migrated in place), NNN-<name>.json (the JSON
# report: mcp-migrate's stdout) and NNN-<name>.log (its human text: stderr), and DIR/summary.tsv holds one
# line per repository. The table goes to stdout, progress to stderr.
#
# Exit status: 0 when mcp-migrate exited 0 in every repository; 1 when any repository could not be fetched
# or ended with another exit code (1 pending, 2 usage error, 3 some files could not be processed: see
# docs/ci-and-batch.md); 2 on a usage error of this script.
set -euo pipefail

# usage CODE: the comment block above as help; on stdout for -h (exit 0), on stderr for a usage error.
usage() {
  if [ "$1" -eq 0 ]; then sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; else sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//' >&2; fi
  exit "$1"
}

out_dir=./mcp-migrate-batch
branch=
repos=()
while getopts 'o:f:b:h' opt; do
  case "$opt" in
    o) out_dir=$OPTARG ;;
    b) branch=$OPTARG ;;
    f)
      if [ "$OPTARG" = - ]; then list=/dev/stdin; else list=$OPTARG; fi
      [ -r "$list" ] || { echo "run-many.sh: cannot read $OPTARG" >&2; exit 2; }
      while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}
        line=$(printf '%s' "$line" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
        [ -n "$line" ] && repos+=("$line")
      done < "$list"
      ;;
    h) usage 0 ;;
    *) usage 2 ;;
  esac
done
shift $((OPTIND - 1))
repos+=("$@")
[ "${#repos[@]}" -gt 0 ] || usage 2
if [ -e "$out_dir" ]; then
  echo "run-many.sh: $out_dir already exists; pass -o with a new directory" >&2
  exit 2
fi
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)

read -r -a mcp_migrate <<< "${MCP_MIGRATE:-npx --yes mcp-migrate}"
read -r -a mcp_args <<< "${MCP_MIGRATE_ARGS:---yes --report json}"

# Copies REPO to DEST: a clone for URLs and local repositories, a plain copy for other directories.
fetch() {
  local src=$1 dest=$2
  if [ -d "$src" ]; then
    if [ -e "$src/.git" ]; then
      git clone --quiet --no-hardlinks -- "$src" "$dest"
    else
      cp -R -- "$src" "$dest"
    fi
  else
    git clone --quiet --depth 1 -- "$src" "$dest"
  fi
}

# Prints "written sdk envelope left errors" from a JSON report, or dashes when there is none.
read_totals() {
  node -e '
    try {
      const t = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).totals;
      console.log([t.written, t.sdk, t.envelope, t.leave, t.errors].join("\t"));
    } catch {
      console.log(["-", "-", "-", "-", "-"].join("\t"));
    }' "$1"
}

summary="$out_dir/summary.tsv"
printf 'REPO\tEXIT\tWRITTEN\tSDK\tENVELOPE\tLEFT\tERRORS\tREPORT\n' > "$summary"
failed=0
index=0
for repo in "${repos[@]}"; do
  index=$((index + 1))
  name=$(basename -- "${repo%/}")
  name=${name%.git}
  id=$(printf '%03d-%s' "$index" "$name")
  dest="$out_dir/$id"
  json="$out_dir/$id.json"
  log="$out_dir/$id.log"
  echo "[$index/${#repos[@]}] $repo" >&2

  if ! fetch "$repo" "$dest" 2> "$log"; then
    printf '%s\tfetch failed\t-\t-\t-\t-\t-\t%s\n' "$repo" "$id.log" >> "$summary"
    failed=1
    continue
  fi
  # stdin from /dev/null: never a terminal, so mcp-migrate never waits for an answer.
  set +e
  (cd "$dest" && "${mcp_migrate[@]}" "${mcp_args[@]}" .) < /dev/null > "$json" 2>> "$log"
  code=$?
  set -e
  totals=$(read_totals "$json")
  [ "$code" -eq 0 ] || failed=1

  if [ -n "$branch" ] && [ "$code" -eq 0 ] && [ -e "$dest/.git" ] && [ -n "$(git -C "$dest" status --porcelain)" ]; then
    if git -C "$dest" checkout --quiet -b "$branch" >> "$log" 2>&1 &&
      git -C "$dest" add --all >> "$log" 2>&1 &&
      git -C "$dest" commit --quiet -m "Move the MCP stdio server onto the official SDK (mcp-migrate)" >> "$log" 2>&1; then
      echo "  committed on branch $branch in $dest" >&2
    else
      echo "  could not commit in $dest (see $log)" >&2
      failed=1
    fi
  fi
  printf '%s\t%s\t%s\t%s\n' "$repo" "$code" "$totals" "$id.json" >> "$summary"
done

# The table: summary.tsv with its columns aligned.
awk -F '\t' '
  { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > width[i]) width[i] = length($i) } if (NF > cols) cols = NF }
  END {
    for (r = 1; r <= NR; r++) {
      line = ""
      for (i = 1; i <= cols; i++) line = line (i < cols ? sprintf("%-" width[i] "s  ", cell[r, i]) : cell[r, i])
      print line
    }
  }' "$summary"
echo "Reports and copies: $out_dir" >&2
exit "$failed"
