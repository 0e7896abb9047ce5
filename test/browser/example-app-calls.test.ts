import { describe, expect, it } from 'vitest'
import { SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { examplePagesPerTest } from './support/example-pages.ts'

/** The example's "A live call" section, on the in-browser mock (MSW worker). */
describe.skipIf(SKIP_BROWSER_TESTS)(`examples/vite-app: a live call, in Chromium${SKIP_NOTE}`, () => {
  const pages = examplePagesPerTest({ timeoutMs: 20_000 })

  it('shows a simulated call appearing in the call logs and progressing to its end, with its events', async () => {
    await pages.page.goto(pages.app.origin)
    await pages.page.locator('body[data-ready="true"]').waitFor()
    await pages.page.getByRole('button', { name: 'Simulate a call' }).click()
    const status = pages.page.locator('#live-call-status')
    const seen: string[] = []
    for (const stage of ['ringing', 'in_progress', 'completed']) {
      await pages.page.locator(`#live-call-status[data-call-status="${stage}"]`).waitFor()
      seen.push(stage)
    }
    expect(seen).toEqual(['ringing', 'in_progress', 'completed'])
    const callId = (await status.textContent())?.match(/call_\w+/)?.[0]
    expect(callId).toBeDefined()
    await expect(pages.page.locator('#live-call-transcript li').count()).resolves.toBeGreaterThan(0)
    await pages.page.locator('#live-call-events li[data-type="transcript.ready"]').waitFor()
    const events = await pages.page
      .locator('#live-call-events li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-type')))
    expect(events).toEqual(['call.started', 'call.ended', 'transcript.ready'])
    // The call-log table, reloaded on each event, shows it completed at the top.
    await pages.page.locator('#calls tbody tr').first().filter({ hasText: 'completed' }).waitFor()
    await screenshot(pages.page, 'example-app-live-call')
  }, 40_000)
})
