import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { defineConfig, loadEnv, type Plugin } from 'vite'

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

/**
 * With `VITE_MOCK_PROXY=http://127.0.0.1:4010` (the standalone mock), `/v1` and `/_mock` are proxied to it: the
 * app calls `/v1` on its own origin, and the mock's dashboard opens at `/_mock/dashboard` here.
 */
function mockProxy(target: string | undefined) {
  return target ? { '/v1': target, '/_mock': target } : undefined
}

export default defineConfig(({ mode }) => {
  const env = { ...loadEnv(mode, import.meta.dirname, 'VITE_'), ...process.env }
  return {
    root: import.meta.dirname,
    plugins: [mockServiceWorker()],
    build: {
      target: 'es2022',
      rolldownOptions: { input: { app: 'index.html', dashboard: 'dashboard.html' } },
    },
    server: { host: '127.0.0.1', port: 5173, proxy: mockProxy(env.VITE_MOCK_PROXY) },
    preview: { host: '127.0.0.1', port: 4173 },
  }
})
