# shellcheck shell=bash
# Shared install and build steps for scripts/start and scripts/test.
#
# Source it from a script that has already run `set -euo pipefail`:
#     source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# Every ensure_* function is idempotent and returns quickly when its thing is
# already there, so the scripts can call them on every run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# cargo resolves a relative CARGO_TARGET_DIR against its working directory; the
# scripts always run cargo from $ROOT.
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
[[ $TARGET_DIR == /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR

# Extra flags for every cargo build/test the scripts run. In CI a Cargo.lock that
# does not match the manifests is a failure, not something to update silently.
CARGO_FLAGS=()
if [[ ${CI:-} == true ]]; then
    CARGO_FLAGS=(--locked)
fi

# Browser downloads do not work on our machines; Playwright uses Debian's chromium.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

log() { printf '==> %s\n' "$*" >&2; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# rustup's installer puts cargo in ~/.cargo/bin, which a non-login shell may lack.
if ! command -v cargo >/dev/null 2>&1 && [[ -f ${HOME:-}/.cargo/env ]]; then
    # shellcheck source=/dev/null
    . "$HOME/.cargo/env"
fi

require_cmd() { # require_cmd NAME HINT
    command -v "$1" >/dev/null 2>&1 || die "'$1' not found: $2"
}

# Root runs apt directly (our machines and CI); anyone else goes through sudo.
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    require_cmd sudo "run as root, or install sudo"
    SUDO=(sudo)
fi

# ---------------------------------------------------------------------------
# Debian packages

# True when the package is fully installed (`dpkg -s` alone also succeeds for a
# package that was removed but left its config files behind).
apt_installed() {
    # shellcheck disable=SC2016 # ${db:Status-Status} is dpkg-query's format, not ours
    [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]
}

_APT_UPDATED=0

# ensure_apt PKG...: install whichever of the packages are missing. Runs
# `apt-get update` at most once per process, and only when something is
# missing. Waits up to 5 minutes for a dpkg lock held by another apt.
ensure_apt() {
    local pkg missing=()
    for pkg in "$@"; do
        apt_installed "$pkg" || missing+=("$pkg")
    done
    ((${#missing[@]} > 0)) || return 0
    require_cmd apt-get "these scripts expect Debian or Ubuntu; install ${missing[*]} by hand"
    local apt=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive
        apt-get -q -o DPkg::Lock::Timeout=300)
    if ((_APT_UPDATED == 0)); then
        log "apt-get update"
        # DPkg::Lock::Timeout does not cover the lists lock that `update` takes,
        # so wait for another apt by retrying while the lock is what failed.
        local out waited=0
        until out=$("${apt[@]}" update 2>&1); do
            if [[ $out != *"Could not get lock"* ]] || ((waited >= 300)); then
                printf '%s\n' "$out" >&2
                die "apt-get update failed"
            fi
            ((waited == 0)) && log "waiting for another apt/dpkg to finish (up to 5 minutes)"
            sleep 5
            waited=$((waited + 5))
        done
        printf '%s\n' "$out" >&2
        _APT_UPDATED=1
    fi
    log "apt-get install ${missing[*]}"
    "${apt[@]}" install -y --no-install-recommends "${missing[@]}"
}

# Debian's postinst starts redis-server as a service on 6379 wherever an init
# system runs (in a container policy-rc.d usually forbids it). Tests start their
# own servers on free ports and scripts/start wants 6379, so call this right
# after installing redis-server. It never touches a redis-server that is not the
# packaged service.
stop_packaged_redis_service() {
    if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
        log "disabling the packaged redis-server service (port 6379)"
        "${SUDO[@]}" systemctl disable --now redis-server >/dev/null 2>&1 || true
    elif command -v service >/dev/null 2>&1 && [[ -x /etc/init.d/redis-server ]]; then
        "${SUDO[@]}" service redis-server stop >/dev/null 2>&1 || true
    fi
}

# ---------------------------------------------------------------------------
# Rust toolchain

ensure_rust_target() { # ensure_rust_target TRIPLE...
    require_cmd rustup "install Rust with rustup (https://rustup.rs)"
    local t installed
    installed=$(rustup target list --installed)
    for t in "$@"; do
        if ! grep -qxF "$t" <<<"$installed"; then
            log "rustup target add $t"
            rustup target add "$t"
        fi
    done
}

ensure_rust_component() { # ensure_rust_component NAME...   (clippy, rustfmt, ...)
    require_cmd rustup "install Rust with rustup (https://rustup.rs)"
    local c installed
    installed=$(rustup component list --installed)
    for c in "$@"; do
        # listed as NAME-<host triple>, e.g. clippy-x86_64-unknown-linux-gnu
        if ! grep -qE "^${c}(-|\$)" <<<"$installed"; then
            log "rustup component add $c"
            rustup component add "$c"
        fi
    done
}

# locked_crate_version NAME: the version of crate NAME recorded in Cargo.lock
# (the first one, if several), or nothing.
locked_crate_version() {
    [[ -f $ROOT/Cargo.lock ]] || return 0
    awk -v name="$1" '
        $0 == "[[package]]"              { pkg = 1; hit = 0; next }
        pkg && $0 == "name = \"" name "\"" { hit = 1; next }
        hit && $1 == "version"           { gsub(/"/, "", $3); print $3; exit }
    ' "$ROOT/Cargo.lock"
}

# ensure_wasm_bindgen VERSION: wasm-bindgen-cli must match the wasm-bindgen crate
# exactly, so install that version unless `wasm-bindgen --version` already says it.
ensure_wasm_bindgen() {
    local want=${1:?ensure_wasm_bindgen needs a version} have
    have=$(wasm-bindgen --version 2>/dev/null || true) # "wasm-bindgen 0.2.93"
    have=${have#wasm-bindgen }
    have=${have%% *}
    [[ $have == "$want" ]] && return 0
    log "cargo install wasm-bindgen-cli $want (found: ${have:-none}; takes a few minutes once)"
    # --locked builds with the CLI's own Cargo.lock. If the registry cannot serve a version
    # pinned there, resolving fails before anything compiles; then resolve afresh.
    if ! cargo install --locked wasm-bindgen-cli --version "$want"; then
        log "cargo install --locked failed; retrying without --locked"
        cargo install wasm-bindgen-cli --version "$want"
    fi
}

# build_server_release: the release binary, $TARGET_DIR/release/vitrine, that scripts/start
# runs and the Dockerfile ships.
build_server_release() {
    log "cargo build --release -p vitrine-server"
    (cd "$ROOT" && cargo build "${CARGO_FLAGS[@]}" --release -p vitrine-server)
}

# ---------------------------------------------------------------------------
# Node

# ensure_npm_ci DIR: `npm ci` in DIR unless node_modules is already installed
# from the current package-lock.json (npm ci writes node_modules/.package-lock.json).
ensure_npm_ci() {
    local dir=${1:?ensure_npm_ci needs a directory}
    require_cmd npm "install Node.js 20 or later with npm"
    [[ -f $dir/package-lock.json ]] ||
        die "$dir/package-lock.json is missing: run 'npm install' in $dir and commit the lock file"
    local stamp=$dir/node_modules/.package-lock.json
    if [[ -f $stamp && ! $dir/package-lock.json -nt $stamp ]]; then
        return 0
    fi
    log "npm ci in ${dir#"$ROOT"/}"
    (cd "$dir" && npm ci --no-audit --no-fund)
}

# ---------------------------------------------------------------------------
# Build hooks for parts of the tree that do not exist yet. Each one does
# nothing until its directory appears, so the scripts can call them already.

# HOOK: the wasm playground package. Active once wasm/Cargo.toml exists. Builds
# the vitrine-wasm crate (profile wasm-release: small, see Cargo.toml) and runs the
# wasm-bindgen version pinned in Cargo.lock. The output directory matches
# .gitignore; change both together. WASM_PKG is where the bindings land.
WASM_PKG=$ROOT/web/src/lib/wasm/pkg
build_wasm_if_present() {
    [[ -f $ROOT/wasm/Cargo.toml ]] || return 0
    ensure_rust_target wasm32-unknown-unknown
    # Resolve first so Cargo.lock is current (with --locked in CI, a stale lock fails here).
    (cd "$ROOT" && cargo metadata "${CARGO_FLAGS[@]}" --format-version 1 >/dev/null)
    local version
    version=$(locked_crate_version wasm-bindgen)
    [[ -n $version ]] || die "wasm-bindgen is not in Cargo.lock; is wasm/ a workspace member?"
    ensure_wasm_bindgen "$version"
    log "cargo build --profile wasm-release -p vitrine-wasm --target wasm32-unknown-unknown"
    (cd "$ROOT" && cargo build "${CARGO_FLAGS[@]}" --profile wasm-release -p vitrine-wasm \
        --target wasm32-unknown-unknown)
    log "wasm-bindgen -> ${WASM_PKG#"$ROOT"/}"
    wasm-bindgen --target web --remove-name-section --remove-producers-section \
        --out-dir "$WASM_PKG" "$TARGET_DIR/wasm32-unknown-unknown/wasm-release/vitrine_wasm.wasm"
}

# HOOK: the dashboard. Active once web/package.json exists. Builds the wasm
# package first (the playground imports it), then `npm ci` + `npm run build`.
build_web_if_present() {
    [[ -f $ROOT/web/package.json ]] || return 0
    build_wasm_if_present
    ensure_npm_ci "$ROOT/web"
    log "npm run build in web"
    (cd "$ROOT/web" && npm run build)
}
