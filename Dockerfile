# Triad's container (design §15; docs/operations.md#containers). The image is the package that
# `npm run package` makes (dist/triad, tested by e2e/lifecycle/package.spec.ts) on a slim Node 24:
#   docker build -t triad .
#   docker run -p 3000:3000 -v triad-data:/data triad
# It serves on 0.0.0.0:3000 as an unprivileged user and keeps its data (the embedded database, the
# secret key, the admin secret) in the /data volume; DATABASE_URL and REDIS_URL move them elsewhere.

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run package

FROM node:24-bookworm-slim
# The node flags and C library setting of npm start (scripts/server-flags.mjs), given at the process's start.
ENV NODE_ENV=production \
    TRIAD_HOST=0.0.0.0 \
    PORT=3000 \
    TRIAD_DATA_DIR=/data \
    MALLOC_MMAP_THRESHOLD_=32768
WORKDIR /app
COPY --from=build /src/dist/triad ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--no-memory-reducer", "--expose-gc", "--max-semi-space-size=16", "server.js"]
