# Dependencies come from package-lock.json through npm on a maintained Node
# LTS; the runtime image is the official Bun image.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json deploy/container/runtime-modules.mjs ./
# npm ci runs it first (package.json "preinstall"): a Node too old is refused.
COPY bin/check-node.mjs bin/
# Behind a TLS-intercepting proxy, hand npm the proxy's CA bundle as the build
# secret `npm_ca` (`--secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt`).
# A secret is mounted for this one command and is in no layer; without one
# npm trusts its own CAs. Then the installed packages the server never loads
# go (runtime-modules.mjs says which and why).
RUN --mount=type=secret,id=npm_ca \
	if [ -f /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
	&& npm ci --omit=dev --no-audit --no-fund \
	&& node runtime-modules.mjs | xargs rm -rf \
	&& find node_modules -mindepth 1 -maxdepth 1 -name '@*' -type d -empty -delete \
	&& rm -rf /root/.npm

FROM oven/bun:1.4-slim
WORKDIR /app
# NODE_ENV=production: no demo faxes nor demo call unless SEED_DEMO=1 asks for them.
# The admin listener (probes, metrics) listens on the container's network for
# the orchestrator and Prometheus; its port is neither exposed nor published.
# The drain (SHUTDOWN_TIMEOUT_SECONDS) ends inside the 10 s that `docker stop`,
# `podman stop` and podman-compose give before SIGKILL, whatever stop grace
# period a tool ignores.
ENV NODE_ENV=production \
	ADMIN_HOST=0.0.0.0 \
	ADMIN_PORT=3001 \
	SHUTDOWN_TIMEOUT_SECONDS=8
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY lib ./lib
COPY routes ./routes
# At run time the server reads the API guide it serves at /docs/API.md and the
# demo faxes and the demo call's session log (SEED_DEMO=1); the rest of docs/
# and fixtures/ is for people and tests.
COPY docs/API.md ./docs/API.md
COPY fixtures/demo-faxes.json ./fixtures/demo-faxes.json
COPY fixtures/hylafax/clean/receiver.log ./fixtures/hylafax/clean/receiver.log
RUN mkdir -p /app/data && chown bun:bun /app/data
USER bun
VOLUME /app/data
EXPOSE 3000
# Bun itself, not npm: it is PID 1, gets the stop signal and drains (at most
# SHUTDOWN_TIMEOUT_SECONDS). The root file system may be read-only
# (`--read-only`): the server writes only to /app/data.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
	CMD ["bun", "-e", "const r = await fetch(`http://127.0.0.1:${process.env.ADMIN_PORT}/healthz`); process.exit(r.ok ? 0 : 1)"]
CMD ["bun", "bin/server.ts"]
