import { describe, expect, it } from 'vitest'
import { SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { examplePagesPerTest } from './support/example-pages.ts'

/** The example (examples/vite-app) talks to the in-browser mock behind MSW's service worker. */
describe.skipIf(SKIP_BROWSER_TESTS)(
  `examples/vite-app through the MSW worker, in Chromium${SKIP_NOTE}`,
  () => {
    const pages = examplePagesPerTest()

    async function open(path = '/') {
      await pages.page.goto(`${pages.app.origin}${path}`)
      await pages.page.locator('body[data-ready="true"]').waitFor()
    }

    const statusOf = (id: string) => pages.page.locator(`#${id}`).getAttribute('data-status')
    /** Control-plane calls from inside the page: they too are answered by the worker. */
    const control = (path: string, body?: unknown) =>
      pages.page.evaluate(
        async ([p, b]) => {
          const init =
            b === undefined
              ? {}
              : { method: 'POST', headers: { 'content-type': 'application/json' }, body: b }
          return (await fetch(`/_mock${p}`, init)).json()
        },
        [path, body === undefined ? undefined : JSON.stringify(body)] as const,
      )

    it('gets 200 through the worker with the publishable key (agents) and the secret key (call logs)', async () => {
      await open()
      await expect(statusOf('agents-status')).resolves.toBe('200')
      await expect(statusOf('calls-status')).resolves.toBe('200')
      await expect(pages.page.locator('#agents tbody tr').count()).resolves.toBeGreaterThan(0)
      await expect(pages.page.locator('#calls tbody tr').count()).resolves.toBe(10)
      const worker = await pages.page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)
      expect(worker).toBe(`${pages.app.origin}/mockServiceWorker.js`)
      const journal = await control('/journal')
      expect(journal.data.map((e: { path: string; status: number }) => `${e.status} ${e.path}`)).toEqual(
        expect.arrayContaining(['200 /v1/agents', '200 /v1/call-logs']),
      )
      await screenshot(pages.page, 'example-app')
    })

    it('keeps its state across a reload and starts over on reset', async () => {
      await open()
      await expect(control('/clock/advance', { seconds: 3600 })).resolves.toMatchObject({
        offset_seconds: 3600,
      })
      await pages.page.reload()
      await pages.page.locator('body[data-ready="true"]').waitFor()
      await expect(pages.page.locator('#mode').textContent()).resolves.toContain('state restored')
      await expect(statusOf('agents-status')).resolves.toBe('200')
      await expect(control('/clock')).resolves.toMatchObject({ offset_seconds: 3600 })

      await pages.page.getByRole('button', { name: 'Reset the mock' }).click()
      await expect(control('/clock')).resolves.toMatchObject({ offset_seconds: 0 })
      await expect(statusOf('agents-status')).resolves.toBe('200')
    })

    it('gets 429 after the burst', async () => {
      await open()
      await pages.page.getByRole('button', { name: 'Send a burst' }).click()
      const result = pages.page.locator('#burst-result[data-statuses]')
      await result.waitFor()
      await expect(result.getAttribute('data-statuses')).resolves.toBe('200,429')
      await expect(result.textContent()).resolves.toMatch(/Retry-After: \d+ s/)
      await screenshot(pages.page, 'example-app-burst')
    })

    it('gets 401 once its key is revoked from the dashboard page', async () => {
      await open()
      await expect(statusOf('agents-status')).resolves.toBe('200')
      // Same tab: the dashboard page restores the state the app saved, and saves the revocation back.
      await pages.page.getByRole('link', { name: /Manage API keys/ }).click()
      await pages.page.locator('body[data-ready="true"]').waitFor()
      await pages.page.getByRole('button', { name: 'Revoke key Demo publishable key' }).click()
      await pages.page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click()
      await pages.page
        .locator('#vak-keys tbody tr', { hasText: 'Demo publishable key' })
        .getByText('Revoked')
        .waitFor()
      await screenshot(pages.page, 'example-dashboard-revoked')

      await pages.page.getByRole('link', { name: 'Back to the app' }).click()
      await pages.page.locator('body[data-ready="true"]').waitFor()
      await expect(statusOf('agents-status')).resolves.toBe('401')
      await expect(pages.page.locator('#agents-status').textContent()).resolves.toContain('invalid_api_key')
      await expect(pages.page.locator('#agents-status').textContent()).resolves.toContain('revoked')
      await expect(statusOf('calls-status')).resolves.toBe('200')
      await screenshot(pages.page, 'example-app-401')

      const failures = await control('/journal?status=401')
      expect(failures.data[0]).toMatchObject({ path: '/v1/agents', status: 401 })
      expect(failures.data[0].key_id).toMatch(/^key_/)
    })

    it('never stores the value of a key created in the in-browser dashboard', async () => {
      await open('/dashboard.html')
      await pages.page.getByLabel('Type').selectOption('publishable')
      await pages.page.getByLabel('Name', { exact: true }).fill('Website widget')
      await pages.page.getByRole('button', { name: 'Generate key' }).click()
      const value = await pages.page.getByLabel('Key value').inputValue()
      expect(value).toMatch(/^pk-svc-/)
      await pages.page.waitForTimeout(300) // past the worker's save delay
      const saved = await pages.page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }))
      expect(saved).toContain('Website widget')
      expect(saved).not.toContain(value)
      await pages.page.reload()
      await pages.page.locator('body[data-ready="true"]').waitFor()
      await pages.page.locator('#vak-keys tbody tr', { hasText: 'Website widget' }).waitFor()
      expect(await pages.page.content()).not.toContain(value)
    })
  },
)
