import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { dashboardPages } from '../../mocks/server/dashboard/dashboard-pages.ts'

const require = createRequire(import.meta.url)

describe('mocks/browser/mockServiceWorker.js', () => {
  it('is the script of the installed msw (run npm run sync:worker after upgrading msw)', () => {
    const shipped = readFileSync(new URL('../../mocks/browser/mockServiceWorker.js', import.meta.url), 'utf8')
    const installed = readFileSync(require.resolve('msw/mockServiceWorker.js'), 'utf8')
    expect(shipped).toBe(installed)
  })

  it('is reachable through the package exports', () => {
    expect(require.resolve('voice-api-kit/mocks/browser/mockServiceWorker.js')).toMatch(
      /mocks\/browser\/mockServiceWorker\.js$/,
    )
  })
})

describe('GET /_mock/dashboard (pages)', () => {
  const pages = dashboardPages()

  it.each([
    ['/dashboard', 'text/html'],
    ['/dashboard/main.js', 'text/javascript'],
    ['/dashboard/dashboard.js', 'text/javascript'],
    ['/dashboard/dashboard.css', 'text/css'],
  ])('serves %s as %s, same-origin only and never cached', async (path, type) => {
    const page = pages[path]
    expect(page).toBeDefined()
    const response = await page?.()
    expect(response?.status).toBe(200)
    expect(response?.headers['content-type']).toContain(type)
    expect(response?.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(response?.headers['cache-control']).toBe('no-store')
  })

  it('serves every module the page imports', () => {
    const missing: string[] = []
    for (const [path, page] of Object.entries(pages)) {
      if (!path.endsWith('.js')) continue
      const source = String((page() as { body: unknown }).body)
      for (const [, name] of source.matchAll(/from '\.\/([\w-]+\.js)'/g))
        if (!pages[`/dashboard/${name}`]) missing.push(`${path} -> ${name}`)
    }
    expect(missing).toEqual([])
  })

  it('assigns no HTML anywhere (everything shown goes through text nodes)', () => {
    const offenders = Object.entries(pages)
      .filter(([path]) => path.endsWith('.js'))
      .filter(([, page]) =>
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write/.test(
          String((page() as { body: unknown }).body),
        ),
      )
      .map(([path]) => path)
    expect(offenders).toEqual([])
  })
})
