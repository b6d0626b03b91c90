import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The console is served by the gateway under /console (apps/api-gateway/src/console):
 * every asset is a hashed file under assets/, nothing inline (its CSP allows only 'self').
 */
export default defineConfig({
  root: here,
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
  resolve: { alias: { '@aas/sdk': path.resolve(here, '../../libs/sdk/src/index.ts') } },
  build: {
    outDir: path.resolve(here, '../../dist/console'),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // React Query marks its modules "use client" (for server components); meaningless in this bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: { proxy: { '/v1': 'http://localhost:3000', '/api': 'http://localhost:3000' } },
});
