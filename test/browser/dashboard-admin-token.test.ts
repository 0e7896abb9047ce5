import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../cli/mock/mock-command.ts'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { startStandaloneMock } from './support/servers.ts'

const ADMIN_TOKEN = 'dashboard-admin-token-0123456789'

describe.skipIf(SKIP_BROWSER_TESTS)(
  `GET /_mock/dashboard with --admin-token, in Chromium${SKIP_NOTE}`,
  () => {
    let browser: Browser
    let mock: RunningMock & { origin: string }
    let page: Page
    let errors: string[]

    beforeAll(async () => {
      ;[browser, mock] = await Promise.all([
        launchChromium(),
        startStandaloneMock(['--admin-token', ADMIN_TOKEN]),
      ])
    })
    afterAll(async () => {
      await browser?.close()
      await mock?.close()
    })
    beforeEach(async () => {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
      context.setDefaultTimeout(5_000)
      page = await context.newPage()
      errors = pageErrors(page)
    })
    afterEach(async () => {
      await page.context().close()
    })

    it('serves the page, which asks for the token and then shows the keys', async () => {
      const response = await page.goto(`${mock.origin}/_mock/dashboard`)
      expect(response?.status()).toBe(200)
      const prompt = page.getByRole('heading', { name: 'Admin token required' })
      await prompt.waitFor()
      await screenshot(page, 'dashboard-admin-token-prompt')
      await expect(page.getByRole('button', { name: 'Continue' }).count()).resolves.toBe(1)
      await page.getByLabel('Admin token').fill(`${ADMIN_TOKEN}-wrong`)
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.locator('text=The mock did not accept that token').waitFor()
      await expect(page.getByRole('button', { name: 'Continue' }).count()).resolves.toBe(1)
      await page.getByLabel('Admin token').fill(ADMIN_TOKEN)
      await page.getByRole('button', { name: 'Continue' }).click()
      await page.locator('#vak-keys tbody tr[data-key-id]').first().waitFor()
      await expect(page.locator('#vak-keys').textContent()).resolves.toContain('Demo publishable key')
      await expect(prompt.count()).resolves.toBe(0)
      expect(errors).toEqual([])
    })

    it('serves the docs page without the token', async () => {
      const response = await page.goto(`${mock.origin}/_mock/docs`)
      expect(response?.status()).toBe(200)
      expect(response?.headers()['content-type']).toMatch(/^text\/html/)
    })
  },
)

describe('the control plane with --admin-token, over HTTP', () => {
  let mock: RunningMock & { origin: string }
  beforeAll(async () => {
    mock = await startStandaloneMock(['--admin-token', ADMIN_TOKEN])
  })
  afterAll(() => mock?.close())

  it.each(['/_mock/dashboard', '/_mock/dashboard/', '/_mock/dashboard/dashboard.js', '/_mock/docs'])(
    'serves GET %s without the token, and nothing in it is the token',
    async (path) => {
      const response = await fetch(`${mock.origin}${path}`)
      expect(response.status).toBe(200)
      expect(await response.text()).not.toContain(ADMIN_TOKEN)
    },
  )

  it.each([
    ['GET', '/_mock/accounts'],
    ['GET', '/_mock/clock'],
    ['GET', '/_mock/journal'],
    ['POST', '/_mock/reset'],
    ['GET', '/_mock/dashboard/unknown.js'],
    ['POST', '/_mock/dashboard'],
  ])('still answers %s %s with 401 without the token', async (method, path) => {
    const response = await fetch(`${mock.origin}${path}`, { method })
    expect(response.status).toBe(401)
    expect((await response.json()).error.code).toBe('invalid_admin_token')
  })

  it('still refuses the pages to a Host that is not the mock', async () => {
    const { request } = await import('node:http')
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${mock.origin}/_mock/dashboard`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(403)
  })
})
