# Dependencies come from package-lock.json through npm on a maintained Node
# LTS; the runtime image is the official Bun image.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM oven/bun:1.4-slim
WORKDIR /app
# NODE_ENV=production: no demo faxes unless SEED_DEMO=1 asks for them.
# The admin listener (probes, metrics) listens on the container's network for
# the orchestrator and Prometheus; its port is neither exposed nor published.
ENV NODE_ENV=production \
	ADMIN_HOST=0.0.0.0 \
	ADMIN_PORT=3001 \
	SHUTDOWN_TIMEOUT_SECONDS=10
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY lib ./lib
COPY routes ./routes
COPY docs ./docs
COPY fixtures ./fixtures
RUN mkdir -p /app/data && chown bun:bun /app/data
USER bun
VOLUME /app/data
EXPOSE 3000
# Bun itself, not npm: it is PID 1, gets the stop signal and drains (at most
# SHUTDOWN_TIMEOUT_SECONDS); give the container a longer stop grace period
# (`docker run --stop-timeout 15`, compose `stop_grace_period: 15s`).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
	CMD ["bun", "-e", "const r = await fetch(`http://127.0.0.1:${process.env.ADMIN_PORT}/healthz`); process.exit(r.ok ? 0 : 1)"]
CMD ["bun", "bin/server.ts"]
