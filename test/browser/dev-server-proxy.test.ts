import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  CHROMIUM_PATH,
  launchChromium,
  pageErrors,
  SKIP_BROWSER_TESTS,
  SKIP_NOTE,
} from './support/chromium.ts'
import { startStandaloneMock } from './support/servers.ts'

/**
 * The standalone mock behind a Vite dev server that proxies `/v1` and `/_mock` to it, configured as a user
 * would (the README's setup): the dashboard served through the proxy can change the mock, while pages of other
 * sites and rebound names still cannot.
 */
describe.skipIf(SKIP_BROWSER_TESTS)(`the control plane behind a Vite dev-server proxy${SKIP_NOTE}`, () => {
  let browser: Browser
  let mock: Awaited<ReturnType<typeof startStandaloneMock>>
  let proxy: ViteDevServer
  let other: ViteDevServer
  let proxyOrigin: string
  let otherOrigin: string
  let root: string

  const clock = async () =>
    (await (await fetch(`${mock.origin}/_mock/clock`)).json()) as { offset_seconds: number }

  async function viteServer(options: { proxyTo?: string; changeOrigin?: boolean }) {
    const { createServer } = await import('vite')
    const target = options.proxyTo
    const server = await createServer({
      configFile: false,
      root,
      logLevel: 'error',
      clearScreen: false,
      server: {
        host: '127.0.0.1',
        port: 0,
        hmr: false,
        proxy: target
          ? {
              '/v1': { target, changeOrigin: options.changeOrigin },
              '/_mock': { target, changeOrigin: options.changeOrigin },
            }
          : undefined,
      },
    })
    await server.listen()
    const origin = server.resolvedUrls?.local[0]?.replace(/\/$/, '')
    if (!origin) throw new Error('no local URL')
    return { server, origin }
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'vak-proxy-'))
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>another site</title><p>hello</p>')
    ;[browser, mock] = await Promise.all([launchChromium(), startStandaloneMock()])
    ;({ server: proxy, origin: proxyOrigin } = await viteServer({ proxyTo: mock.origin }))
    ;({ server: other, origin: otherOrigin } = await viteServer({}))
  })
  afterAll(async () => {
    await browser?.close()
    await proxy?.close()
    await other?.close()
    await mock?.close()
    rmSync(root, { recursive: true, force: true })
  })
  beforeEach(async () => {
    await fetch(`${mock.origin}/_mock/reset`, { method: 'POST' })
  })

  /** Opens the dashboard and moves the clock by a minute with its button; `ahead`: the minutes it then shows. */
  async function moveClockInDashboard(page: Page, dashboardUrl: string, ahead: number) {
    const errors = pageErrors(page)
    await page.goto(dashboardUrl)
    await page.locator('#vak-keys tbody tr[data-key-id]').first().waitFor()
    await page.getByRole('button', { name: '+1 minute' }).click()
    await page.locator('#vak-clock-now + p', { hasText: `${ahead} min ahead` }).waitFor({ timeout: 5_000 })
    expect(errors).toEqual([])
  }

  it('changes the mock from the dashboard served through the proxy (127.0.0.1 and localhost)', async () => {
    const page = await browser.newPage()
    await moveClockInDashboard(page, `${proxyOrigin}/_mock/dashboard`, 1)
    await expect(clock()).resolves.toMatchObject({ offset_seconds: 60 })
    await moveClockInDashboard(page, `${proxyOrigin.replace('127.0.0.1', 'localhost')}/_mock/dashboard`, 2)
    await expect(clock()).resolves.toMatchObject({ offset_seconds: 120 })
    await page.close()
  })

  it('changes the mock through a proxy with changeOrigin, and from the mock opened as localhost', async () => {
    const { server, origin } = await viteServer({ proxyTo: mock.origin, changeOrigin: true })
    try {
      const page = await browser.newPage()
      await moveClockInDashboard(page, `${origin}/_mock/dashboard`, 1)
      await moveClockInDashboard(page, `${mock.origin.replace('127.0.0.1', 'localhost')}/_mock/dashboard`, 2)
      await expect(clock()).resolves.toMatchObject({ offset_seconds: 120 })
      await page.close()
    } finally {
      await server.close()
    }
  })

  it("refuses changes from another site's page, same-site or cross-site, directly or through the proxy", async () => {
    await fetch(`${mock.origin}/_mock/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"seconds":600}',
    })
    const page = await browser.newPage()
    for (const site of [otherOrigin, otherOrigin.replace('127.0.0.1', 'localhost')]) {
      await page.goto(`${site}/`)
      for (const target of [mock.origin, proxyOrigin]) {
        // A no-cors POST needs no preflight: the request reaches the mock, which must refuse it.
        await page.evaluate(async (url) => {
          await fetch(`${url}/_mock/reset`, { method: 'POST', mode: 'no-cors' }).catch(() => {})
        }, target)
      }
    }
    await page.close()
    await expect(clock()).resolves.toMatchObject({ offset_seconds: 600 })
    const journal = await fetch(`${mock.origin}/_mock/journal`)
    expect(journal.status).toBe(200)
  })

  it('refuses a rebound name (DNS rebinding) even though the browser calls the page same-origin', async () => {
    // evil.example resolves to the mock's address: the page is same-origin with the mock for the browser.
    const rebinding = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--host-resolver-rules=MAP evil.example 127.0.0.1',
      ],
    })
    try {
      const page = await rebinding.newPage()
      const port = new URL(mock.origin).port
      const loaded = await page.goto(`http://evil.example:${port}/v1/user`)
      expect(loaded?.status()).toBe(401)
      const answer = await page.evaluate(async () => {
        const response = await fetch('/_mock/reset', { method: 'POST' })
        return { status: response.status, body: await response.json() }
      })
      expect(answer.status).toBe(403)
      expect(answer.body.error.code).toBe('host_not_allowed')
    } finally {
      await rebinding.close()
    }
  })
})
