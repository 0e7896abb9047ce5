import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../mocks/cli/mock-command.ts'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { startExampleApp, startStandaloneMock } from './support/servers.ts'

/** The same example pointed at the standalone mock by URL (VITE_API_BASE_URL): no worker, real HTTP and CORS. */
describe.skipIf(SKIP_BROWSER_TESTS)(
  `examples/vite-app against the standalone mock, in Chromium${SKIP_NOTE}`,
  () => {
    let browser: Browser
    let mock: RunningMock & { origin: string }
    let app: { origin: string; close(): Promise<void> }
    let page: Page
    let errors: string[]
    const saved = { ...process.env }

    beforeAll(async () => {
      ;[browser, mock] = await Promise.all([launchChromium(), startStandaloneMock()])
      // Vite reads VITE_* variables from the environment when the server starts (this file runs in its own worker).
      process.env.VITE_API_BASE_URL = mock.baseUrl
      process.env.VITE_PUBLISHABLE_KEY = mock.platform.demo.publishableKey
      process.env.VITE_SECRET_KEY = mock.platform.demo.secretKey
      app = await startExampleApp()
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      context.setDefaultTimeout(15_000)
      page = await context.newPage()
      errors = pageErrors(page)
    })
    afterAll(async () => {
      process.env = saved
      await browser?.close()
      await app?.close()
      await mock?.close()
    })

    it('gets 401 once its key is revoked in the dashboard at /_mock/dashboard', async () => {
      await page.goto(app.origin)
      await page.locator('body[data-ready="true"]').waitFor()
      await expect(page.locator('#mode').textContent()).resolves.toBe(`API at ${mock.baseUrl}`)
      await expect(page.evaluate(() => navigator.serviceWorker.controller)).resolves.toBeNull()
      await expect(page.locator('#agents-status').getAttribute('data-status')).resolves.toBe('200')

      await page.getByRole('link', { name: /Manage API keys/ }).click()
      await page.waitForURL(`${mock.origin}/_mock/dashboard`)
      await page.getByRole('button', { name: 'Revoke key Demo publishable key' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click()
      await page
        .locator('#vak-keys tbody tr', { hasText: 'Demo publishable key' })
        .getByText('Revoked')
        .waitFor()

      await page.goto(app.origin)
      await page.locator('body[data-ready="true"]').waitFor()
      await expect(page.locator('#agents-status').getAttribute('data-status')).resolves.toBe('401')
      await expect(page.locator('#calls-status').getAttribute('data-status')).resolves.toBe('200')

      await page.goto(`${mock.origin}/_mock/dashboard`)
      await page.getByLabel('Show').selectOption('401')
      const failure = page.locator('#vak-journal tbody tr[data-status="401"]').first()
      await failure.waitFor()
      await expect(failure.textContent()).resolves.toContain('Demo publishable key')
      await screenshot(page, 'dashboard-after-rotation-standalone')
      expect(errors).toEqual([])
    })
  },
)
