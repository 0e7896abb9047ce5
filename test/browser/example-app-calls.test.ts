import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { startExampleApp } from './support/servers.ts'

/** The example's "A live call" section, on the in-browser mock (MSW worker). */
describe.skipIf(SKIP_BROWSER_TESTS)(`examples/vite-app: a live call, in Chromium${SKIP_NOTE}`, () => {
  let browser: Browser
  let app: { origin: string; close(): Promise<void> }
  let context: BrowserContext
  let page: Page
  let errors: string[]

  beforeAll(async () => {
    ;[browser, app] = await Promise.all([launchChromium(), startExampleApp()])
  })
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    context.setDefaultTimeout(20_000)
    page = await context.newPage()
    errors = pageErrors(page)
  })
  afterEach(async () => {
    expect(errors).toEqual([])
    await context.close()
  })

  it('shows a simulated call appearing in the call logs and progressing to its end, with its events', async () => {
    await page.goto(app.origin)
    await page.locator('body[data-ready="true"]').waitFor()
    await page.getByRole('button', { name: 'Simulate a call' }).click()
    const status = page.locator('#live-call-status')
    const seen: string[] = []
    for (const stage of ['ringing', 'in_progress', 'completed']) {
      await page.locator(`#live-call-status[data-call-status="${stage}"]`).waitFor()
      seen.push(stage)
    }
    expect(seen).toEqual(['ringing', 'in_progress', 'completed'])
    const callId = (await status.textContent())?.match(/call_\w+/)?.[0]
    expect(callId).toBeDefined()
    await expect(page.locator('#live-call-transcript li').count()).resolves.toBeGreaterThan(0)
    await page.locator('#live-call-events li[data-type="transcript.ready"]').waitFor()
    const events = await page
      .locator('#live-call-events li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-type')))
    expect(events).toEqual(['call.started', 'call.ended', 'transcript.ready'])
    // The call-log table, reloaded on each event, shows it completed at the top.
    await page.locator('#calls tbody tr').first().filter({ hasText: 'completed' }).waitFor()
    await screenshot(page, 'example-app-live-call')
  }, 40_000)
})
