# One image for all six apps; the app is chosen by the command (see docker-compose.yml).
#
#   api-gateway (default)  node dist/apps/api-gateway/apps/api-gateway/src/main.js
#   agents-service         node dist/apps/agents-service/apps/agents-service/src/main.js
#   runs-service           node dist/apps/runs-service/apps/runs-service/src/main.js
#   scheduler-service      node dist/apps/scheduler-service/apps/scheduler-service/src/main.js
#   webhook-delivery       node dist/apps/webhook-delivery/apps/webhook-delivery/src/main.js
#   agent-runtime          node dist/apps/agent-runtime/apps/agent-runtime/src/main.js
#
# Append `migrate` to a back-end app's command to apply its schema's migrations and exit 0
# (api-gateway has no migrations; it needs PUBLIC_BASE_URL, the URL clients reach it at). The admin
# command line (docs/operations.md):
#   node dist/apps/agents-service/apps/agents-service/src/cli/admin-cli.js users create --email E
#   e.g. docker compose exec agents-service node dist/apps/agents-service/apps/agents-service/src/cli/admin-cli.js users create --email me@example.com
#
# No HEALTHCHECK here: each app serves /healthz on a different port (PORT for the gateway,
# HEALTH_PORT for the others), so the checks live in docker-compose.yml and the k8s probes.

ARG NODE_IMAGE=node:22-bookworm-slim

# ---- build: every dependency, compile all apps and libs into dist/ ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

# ---- runtime: production dependencies and the compiled output only ----
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# V8's young generation at 8 MB per semi-space (16 by default): about 15 MB less resident memory per
# process at rest, at no CPU cost we could measure (docs/performance.md).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=8 \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist

# Files stay owned by root (read-only to the app); the processes run as the unprivileged user.
USER node

# 3000: api-gateway PORT; 3001-3004: HEALTH_PORT of agents, runs, scheduler, webhook-delivery; 3006: agent-runtime PORT.
EXPOSE 3000 3001 3002 3003 3004 3006
STOPSIGNAL SIGTERM
CMD ["node", "dist/apps/api-gateway/apps/api-gateway/src/main.js"]
