# Vitrine in a container: the server with the dashboard on its admin port.
#
#     docker build -t vitrine .
#     export VITRINE_REQUIREPASS=$(openssl rand -hex 16) VITRINE_ADMIN_TOKEN=$(openssl rand -hex 16)
#     docker run --rm -p 127.0.0.1:6379:6379 -p 127.0.0.1:8080:8080 \
#         -e VITRINE_REQUIREPASS -e VITRINE_ADMIN_TOKEN vitrine
#     REDISCLI_AUTH=$VITRINE_REQUIREPASS redis-cli -p 6379 ping
#
# A client from outside the container (the host through a published port, another container)
# is not on the container's loopback, so protected mode, on as in Redis, answers it -DENIED
# until a password is set (VITRINE_REQUIREPASS above) or protected mode is turned off
# (VITRINE_PROTECTED_MODE=no; only where no one else can reach the port).
#
# Every build step is a function from scripts/lib.sh, the same ones scripts/start and CI
# (scripts/test) run, so the image is built the way the project is tested.
# docker-compose.yml runs this image with a small maxmemory and a load generator.

ARG RUST_IMAGE=rust:1-bookworm
ARG NODE_IMAGE=node:20-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# --- the sources, in a Rust toolchain image ---------------------------------
FROM ${RUST_IMAGE} AS rust
WORKDIR /src
COPY . .
# As in CI: a Cargo.lock that does not match the manifests fails the build (--locked).
ENV CI=true

# --- the wasm package the dashboard imports (nothing to do until wasm/ exists)
FROM rust AS wasm
RUN bash -c 'source scripts/lib.sh && build_wasm_if_present' \
    && mkdir -p web/src/lib/wasm/pkg

# --- the release binary -------------------------------------------------------
FROM rust AS server
RUN bash -c 'source scripts/lib.sh && build_server_release'

# --- the dashboard: npm ci && npm run build -----------------------------------
FROM ${NODE_IMAGE} AS web
WORKDIR /src
COPY scripts/lib.sh scripts/lib.sh
# Dependencies first, so changing a component does not reinstall them.
COPY web/package.json web/package-lock.json web/
RUN bash -c 'source scripts/lib.sh && ensure_npm_ci "$ROOT/web"'
COPY web/ web/
COPY --from=wasm /src/web/src/lib/wasm/pkg web/src/lib/wasm/pkg
# wasm/ is not in this stage, so this builds the web app alone, with the package above.
RUN bash -c 'source scripts/lib.sh && build_web_if_present'

# --- runtime: the binary, the built dashboard, nothing else -------------------
FROM ${RUNTIME_IMAGE}
RUN useradd --system --uid 10001 --user-group --home-dir /data --create-home vitrine
COPY --from=server /src/target/release/vitrine /usr/local/bin/vitrine
COPY --from=web /src/web/dist /usr/share/vitrine/web

# Listen on every interface of the container (that is what publishing a port needs). Any
# option can be changed with its VITRINE_* variable or a flag after the image name.
#
# The admin API then refuses to start without a token: pass VITRINE_ADMIN_TOKEN (or
# --admin-token). For a local demo only, VITRINE_ADMIN_INSECURE=true (--admin-insecure)
# serves it without one; publish the ports on 127.0.0.1 then, as docker-compose.yml does.
ENV VITRINE_BIND=0.0.0.0 \
    VITRINE_HTTP_BIND=0.0.0.0 \
    VITRINE_DIR=/data \
    VITRINE_WEB_DIR=/usr/share/vitrine/web
USER vitrine
WORKDIR /data
EXPOSE 6379 8080
# /readyz needs no token. bash's /dev/tcp: the slim image has no curl.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=6 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${VITRINE_HTTP_PORT:-8080} && printf 'GET /readyz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
ENTRYPOINT ["vitrine"]
