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
    # pinned there, resolving fails before anything compiles; then resolve afresh. The first
    # attempt's output is kept aside: its `error:` line would read as a failure to a newcomer
    # when the retry then succeeds, so it is shown only if both attempts fail.
    local first
    first=$(mktemp)
    if cargo install --locked wasm-bindgen-cli --version "$want" >"$first" 2>&1; then
        rm -f "$first"
        return 0
    fi
    log "wasm-bindgen-cli's own Cargo.lock did not resolve here; installing with a fresh resolve"
    if ! cargo install wasm-bindgen-cli --version "$want"; then
        log "both attempts failed; the first one (--locked) said:"
        cat "$first" >&2
        rm -f "$first"
        return 1
    fi
    rm -f "$first"
}

# ensure_c_toolchain: rustup brings no linker, and jemalloc (the server's allocator) is
# compiled from C with make; a bare Debian has neither.
ensure_c_toolchain() {
    if command -v cc >/dev/null 2>&1 && command -v make >/dev/null 2>&1; then
        return 0
    fi
    ensure_apt build-essential
}

# ---------------------------------------------------------------------------
# Go programs

# redis_exporter, the Prometheus exporter server/tests/tools.rs scrapes Vitrine with, at a
# pinned version, built from the Go module proxy with the machine's Go into `go env GOBIN`
# (default: $(go env GOPATH)/bin), where the test looks for it. The module's hash (as `go mod
# download` reports it, `h1:` of its zip) is pinned beside the version.
REDIS_EXPORTER_VERSION=v1.62.0
REDIS_EXPORTER_SUM=h1:7T0Fh8fJeYxf9gWa5gI6IliOSOWY9F5WlJCQMjZcjVE=

ensure_redis_exporter() {
    require_cmd go "install Go (https://go.dev/dl/)"
    local module=github.com/oliver006/redis_exporter gobin
    gobin=$(go env GOBIN)
    [[ -n $gobin ]] || gobin="$(go env GOPATH)/bin"
    local stamp="$gobin/.redis_exporter-version"
    if [[ -x $gobin/redis_exporter && $(cat "$stamp" 2>/dev/null) == "$REDIS_EXPORTER_VERSION" ]]; then
        return 0
    fi
    log "building redis_exporter $REDIS_EXPORTER_VERSION from the Go module proxy (once; about a minute)"
    # Not `go install module@version`: that also lists the module's versions (for deprecation
    # notices), which the proxy here refuses (403), and the checksum database does not answer
    # for this module. So: download the pinned version without the checksum database, check
    # its hash against the one pinned above, and build it where it was unpacked, with its own
    # go.mod and go.sum (which pin and check every dependency). Run outside any Go module.
    local json dir sum
    json=$(cd /tmp && GONOSUMDB=$module go mod download -json "$module@$REDIS_EXPORTER_VERSION") ||
        die "go mod download $module@$REDIS_EXPORTER_VERSION failed"
    dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")
    sum=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$json")
    [[ $sum == "$REDIS_EXPORTER_SUM" ]] ||
        die "$module@$REDIS_EXPORTER_VERSION has hash '$sum', not the pinned $REDIS_EXPORTER_SUM"
    [[ -d $dir ]] || die "go mod download gave no directory for $module@$REDIS_EXPORTER_VERSION"
    mkdir -p "$gobin"
    (cd "$dir" && go build -trimpath -o "$gobin/redis_exporter" .) || die "building redis_exporter failed"
    printf '%s\n' "$REDIS_EXPORTER_VERSION" >"$stamp"
}

# build_server_release: the release binary, $TARGET_DIR/release/vitrine, that scripts/start
# runs and the Dockerfile ships.
build_server_release() {
    ensure_c_toolchain
    log "cargo build --release -p vitrine-server"
    (cd "$ROOT" && cargo build "${CARGO_FLAGS[@]}" --release -p vitrine-server)
}

# ---------------------------------------------------------------------------
# Python

# ensure_python_venv DIR REQUIREMENTS: a virtualenv in DIR holding exactly what REQUIREMENTS
# pins (every file by hash: pip's --require-hashes, wheels only), made with the python3 on PATH
# (pyenv's or Debian's; it must be >= 3.10). Skipped when DIR was made from this very file:
# its sha256 is kept in DIR, so editing the file reinstalls. Keep DIR out of the tracked tree
# (under $TARGET_DIR).
ensure_python_venv() {
    local dir=${1:?ensure_python_venv needs a directory} req=${2:?and a requirements file}
    local stamp=$dir/.requirements.sha256 want
    want=$(sha256sum "$req" | awk '{ print $1 }')
    # A venv whose interpreter went away (another machine, a removed pyenv version) is rebuilt.
    if [[ $(cat "$stamp" 2>/dev/null) == "$want" ]] && "$dir/bin/python" -c '' 2>/dev/null; then
        return 0
    fi
    command -v python3 >/dev/null 2>&1 || ensure_apt python3
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
        die "python3 >= 3.10 is needed for ${req#"$ROOT"/} (found: $(python3 --version 2>&1))"
    log "creating a Python venv in ${dir#"$ROOT"/} from ${req#"$ROOT"/}"
    rm -rf "$dir"
    # pip's own install into a new venv (ensurepip) takes longer than everything else here, so
    # the venv gets no pip when python3 has one that can install into another environment
    # (`pip --python`, pip >= 22.3). Else a venv with pip: Debian's own python3 makes those
    # only with python3-venv installed (it brings ensurepip's wheels).
    local pip=()
    python3 -m venv --without-pip "$dir" 2>/dev/null && pip=(python3 -m pip --python "$dir/bin/python")
    if ((${#pip[@]} == 0)) || ! "${pip[@]}" --version >/dev/null 2>&1; then
        rm -rf "$dir"
        python3 -m venv "$dir" >/dev/null 2>&1 || {
            rm -rf "$dir"
            ensure_apt python3-venv
            python3 -m venv "$dir"
        }
        pip=("$dir/bin/python" -m pip)
    fi
    # --no-compile: the tests run once per install, so compiling every module up front is lost time.
    "${pip[@]}" install --quiet --disable-pip-version-check --no-input --no-compile \
        --require-hashes --only-binary=:all: --no-deps -r "$req"
    printf '%s\n' "$want" >"$stamp"
}

# ---------------------------------------------------------------------------
# Node

# The web build (Vite 8) needs Node.js >= 20.19; Debian 12's own nodejs is 18. When the node
# on PATH is missing or older, or has no npm beside it, ensure_node installs the Node.js and
# npm pinned below from the npm registry, one of the package registries every machine of ours
# reaches (no other download site is): the node-linux-<arch> package carries the official
# node binary, the npm package the npm CLI. Each tarball is checked against its sha512 (the
# registry's `dist.integrity`, in hex) before anything is unpacked.
NODE_MIN=20.19.0
NODE_VERSION=22.23.3
NODE_SHA512_x64=a879f3e6d16c1e88ff58cfae4443558d638d8b9855be6c2b82af00e15efa2a9b95340738fa3c0af31e20c1ba1b13d06d1cd83f00a476e7cdde628acb17f73b9e
NODE_SHA512_arm64=9770c01d9adeca5a3ea7d4170edb0eae31b625726a5736179c01a621034e50d01170ca694ced9c99ec1540ffb7ead8c99d213e773a4c36d816f9cde8883bd7b4
NPM_VERSION=10.9.9
NPM_SHA512=d60fba8cb42f688b81e33c2f1cbef2ad7b977166700ec0ad057f1b6d60ea6ef2524abf673e20c35931cd8305d1dbb8887134d6eefdc0e7b8435bd458bf65b862
# Where it goes: one directory per version, kept across runs and clones.
VITRINE_TOOLS=${VITRINE_TOOLS:-${XDG_DATA_HOME:-${HOME:-/root}/.local/share}/vitrine}

# version_at_least HAVE MIN: true when dotted version HAVE >= MIN.
version_at_least() {
    [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1) == "$2" ]]
}

# node_usable: the node on PATH is new enough and has npm beside it.
node_usable() {
    local have
    have=$(node --version 2>/dev/null) || return 1
    version_at_least "${have#v}" "$NODE_MIN" && command -v npm >/dev/null 2>&1
}

# npm_registry: where npm itself would fetch from (npm's config, else the public registry).
npm_registry() {
    local url=${npm_config_registry:-}
    if [[ -z $url ]] && command -v npm >/dev/null 2>&1; then
        url=$(npm config get registry 2>/dev/null | tail -n 1) || url=
    fi
    [[ $url == http* ]] || url=https://registry.npmjs.org/
    printf '%s' "${url%/}"
}

# fetch_checked URL SHA512 FILE: download URL to FILE, and fail unless its sha512 is SHA512.
fetch_checked() {
    curl -fsSL --retry 3 --connect-timeout 20 -o "$3" "$1" || die "download failed: $1"
    local got
    got=$(sha512sum "$3" | awk '{ print $1 }')
    [[ $got == "$2" ]] || die "checksum mismatch for $1 (got sha512 $got)"
}

_NODE_READY=0

# ensure_node: a Node.js >= $NODE_MIN with npm on PATH, installing the pinned one if needed.
ensure_node() {
    ((_NODE_READY == 0)) || return 0
    local arch dir have
    local sha=""
    case $(uname -m) in
        x86_64 | amd64) arch=x64 sha=$NODE_SHA512_x64 ;;
        aarch64 | arm64) arch=arm64 sha=$NODE_SHA512_arm64 ;;
        *) arch="" ;;
    esac
    dir=$VITRINE_TOOLS/node-v$NODE_VERSION-linux-$arch
    have=$(node --version 2>/dev/null || echo none)
    if node_usable; then
        _NODE_READY=1
        return 0
    fi
    [[ -n $arch ]] || die "Node.js >= $NODE_MIN is needed (found: $have) and none is pinned for $(uname -m): install one by hand"
    if [[ ! -x $dir/bin/node ]]; then
        ensure_apt curl ca-certificates
        local registry tmp
        registry=$(npm_registry)
        log "installing Node.js $NODE_VERSION and npm $NPM_VERSION from the npm registry into $dir (node on PATH: $have; the web build needs >= $NODE_MIN)"
        mkdir -p "$VITRINE_TOOLS"
        tmp=$(mktemp -d "$VITRINE_TOOLS/.node-install.XXXXXX")
        fetch_checked "$registry/node-linux-$arch/-/node-linux-$arch-$NODE_VERSION.tgz" "$sha" "$tmp/node.tgz"
        fetch_checked "$registry/npm/-/npm-$NPM_VERSION.tgz" "$NPM_SHA512" "$tmp/npm.tgz"
        mkdir -p "$tmp/node" "$tmp/npm" "$tmp/root/bin" "$tmp/root/lib/node_modules"
        tar -xzf "$tmp/node.tgz" -C "$tmp/node"
        tar -xzf "$tmp/npm.tgz" -C "$tmp/npm"
        mv "$tmp/node/package/bin/node" "$tmp/root/bin/node"
        mv "$tmp/npm/package" "$tmp/root/lib/node_modules/npm"
        # The same layout as Node's own release tarballs: npm and npx link to their CLIs.
        ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/root/bin/npm"
        ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tmp/root/bin/npx"
        rm -rf "$dir"
        mv "$tmp/root" "$dir"
        rm -rf "$tmp"
    else
        log "using Node.js $NODE_VERSION from $dir (node on PATH: $have; the web build needs >= $NODE_MIN)"
    fi
    export PATH="$dir/bin:$PATH"
    hash -r
    node_usable || die "the Node.js installed in $dir does not run: $("$dir/bin/node" --version 2>&1 | head -n 1)"
    _NODE_READY=1
}

# ensure_npm_ci DIR: `npm ci` in DIR unless node_modules is already installed
# from the current package-lock.json (npm ci writes node_modules/.package-lock.json).
ensure_npm_ci() {
    local dir=${1:?ensure_npm_ci needs a directory}
    ensure_node
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
# package first (the playground imports it), then the dashboard.
build_web_if_present() {
    [[ -f $ROOT/web/package.json ]] || return 0
    build_wasm_if_present
    build_dashboard
}

# build_dashboard: `npm ci` + `npm run build` into web/dist, with whatever wasm package is in
# WASM_PKG (none: the Playground page says it is not built yet).
build_dashboard() {
    ensure_npm_ci "$ROOT/web"
    log "npm run build in web"
    (cd "$ROOT/web" && npm run build)
}
