import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { defineConfig, type Plugin } from 'vite'

const require = createRequire(import.meta.url)

/**
 * Serves (and, in a build, emits) the service-worker script that ships in the package. In your own app,
 * copy it into `public/` once instead: `cp node_modules/voice-api-kit/mocks/browser/mockServiceWorker.js public/`.
 */
function mockServiceWorker(): Plugin {
  const file = require.resolve('voice-api-kit/mocks/browser/mockServiceWorker.js')
  return {
    name: 'voice-api-kit:mock-service-worker',
    configureServer(server) {
      server.middlewares.use('/mockServiceWorker.js', (_req, res) => {
        res.setHeader('content-type', 'text/javascript; charset=utf-8')
        res.setHeader('cache-control', 'no-store')
        res.end(readFileSync(file))
      })
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'mockServiceWorker.js', source: readFileSync(file) })
    },
  }
}

export default defineConfig({
  root: import.meta.dirname,
  plugins: [mockServiceWorker()],
  build: {
    target: 'es2022',
    rolldownOptions: { input: { app: 'index.html', dashboard: 'dashboard.html' } },
  },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4173 },
})
