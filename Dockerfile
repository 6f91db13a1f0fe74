# Dependencies come from package-lock.json through npm, as on a developer's
# machine; the runtime image is the official Bun image.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM oven/bun:1.4-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY lib ./lib
COPY routes ./routes
COPY fixtures ./fixtures
RUN mkdir -p /app/data && chown bun:bun /app/data
USER bun
VOLUME /app/data
EXPOSE 3000
CMD ["bun", "bin/server.ts"]
