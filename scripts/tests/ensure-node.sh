#!/usr/bin/env bash
# Checks scripts/lib.sh's ensure_node as a bare Debian 12 machine meets it: the node on PATH is
# Debian's 18 (a stand-in that only reports its version), too old for Vite 8. ensure_node must
# install the pinned Node.js and npm from the npm registry into VITRINE_TOOLS, put them first on
# PATH, and on a second run reuse them without downloading. Runs in a temporary directory and
# leaves nothing behind. Prints "N passed, N failed" at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/debian-node/bin"
printf '#!/bin/sh\necho v18.19.0\n' >"$tmp/debian-node/bin/node"
chmod +x "$tmp/debian-node/bin/node"

passed=0 failed=0
check() { # check NAME COMMAND...
    if "${@:2}"; then
        passed=$((passed + 1))
        echo "ok   $1"
    else
        failed=$((failed + 1))
        echo "FAIL $1"
    fi
}

# One run of ensure_node in a clean environment with the old node first on PATH. Prints
# `node --version`, `npm --version` and the node path, one per line; its log goes to $2.
run_ensure_node() {
    env -i HOME="$tmp/home" VITRINE_TOOLS="$tmp/tools" \
        PATH="$tmp/debian-node/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        bash -c 'set -euo pipefail; source "$1/scripts/lib.sh"; ensure_node
                 node --version; npm --version; command -v node' _ "$ROOT" 2>"$1"
}

# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

first=$(run_ensure_node "$tmp/first.log") || { cat "$tmp/first.log"; exit 1; }
mapfile -t got <<<"$first"
check "the old node is replaced by Node.js v$NODE_VERSION" [ "${got[0]}" = "v$NODE_VERSION" ]
check "npm $NPM_VERSION comes with it" [ "${got[1]}" = "$NPM_VERSION" ]
check "it is installed under VITRINE_TOOLS" [ "${got[2]#"$tmp/tools/"}" != "${got[2]}" ]
check "the first run says what it installed" grep -q "installing Node.js $NODE_VERSION" "$tmp/first.log"

second=$(run_ensure_node "$tmp/second.log") || { cat "$tmp/second.log"; exit 1; }
check "a second run gives the same node" [ "$second" = "$first" ]
check "a second run reuses the install" grep -q "using Node.js $NODE_VERSION from" "$tmp/second.log"
check "a second run downloads nothing" bash -c '! grep -q installing "$1"' _ "$tmp/second.log"

# A damaged download is refused, not installed: the download itself works (a local file), and
# the refusal must be for its checksum.
check "a checksum mismatch is refused" bash -c '
    source "$1/scripts/lib.sh"
    printf x >"$2/bad"
    ! (fetch_checked "file://$2/bad" 0000 "$2/bad.out") 2>"$2/bad.err" &&
        grep -q "checksum mismatch" "$2/bad.err"' _ "$ROOT" "$tmp"

echo "ensure_node: $passed passed, $failed failed"
((failed == 0))
