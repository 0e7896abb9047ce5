import { describe, expect, it } from 'vitest'
import { SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { examplePageOnStandaloneMock } from './support/example-pages.ts'

/** The same example pointed at the standalone mock by URL (VITE_API_BASE_URL): no worker, real HTTP and CORS. */
describe.skipIf(SKIP_BROWSER_TESTS)(
  `examples/vite-app against the standalone mock, in Chromium${SKIP_NOTE}`,
  () => {
    const pages = examplePageOnStandaloneMock((mock) => ({ VITE_API_BASE_URL: mock.baseUrl }))

    it('gets 401 once its key is revoked in the dashboard at /_mock/dashboard', async () => {
      await pages.page.goto(pages.app.origin)
      await pages.page.locator('body[data-ready="true"]').waitFor()
      await expect(pages.page.locator('#mode').textContent()).resolves.toBe(`API at ${pages.mock.baseUrl}`)
      await expect(pages.page.evaluate(() => navigator.serviceWorker.controller)).resolves.toBeNull()
      await expect(pages.page.locator('#agents-status').getAttribute('data-status')).resolves.toBe('200')

      await pages.page.getByRole('link', { name: /Manage API keys/ }).click()
      await pages.page.waitForURL(`${pages.mock.origin}/_mock/dashboard`)
      await pages.page.getByRole('button', { name: 'Revoke key Demo publishable key' }).click()
      await pages.page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click()
      await pages.page
        .locator('#vak-keys tbody tr', { hasText: 'Demo publishable key' })
        .getByText('Revoked')
        .waitFor()

      await pages.page.goto(pages.app.origin)
      await pages.page.locator('body[data-ready="true"]').waitFor()
      await expect(pages.page.locator('#agents-status').getAttribute('data-status')).resolves.toBe('401')
      await expect(pages.page.locator('#calls-status').getAttribute('data-status')).resolves.toBe('200')

      await pages.page.goto(`${pages.mock.origin}/_mock/dashboard`)
      await pages.page.getByLabel('Show').selectOption('401')
      const failure = pages.page.locator('#vak-journal tbody tr[data-status="401"]').first()
      await failure.waitFor()
      await expect(failure.textContent()).resolves.toContain('Demo publishable key')
      await screenshot(pages.page, 'dashboard-after-rotation-standalone')
      expect(pages.errors).toEqual([])
    })
  },
)
