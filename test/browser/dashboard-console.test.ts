import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../cli/mock/mock-command.ts'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE } from './support/chromium.ts'
import { startStandaloneMock } from './support/servers.ts'

describe.skipIf(SKIP_BROWSER_TESTS)(`the dashboard's console in Chromium${SKIP_NOTE}`, () => {
  let browser: Browser
  let mock: RunningMock & { origin: string }

  beforeAll(async () => {
    ;[browser, mock] = await Promise.all([launchChromium(), startStandaloneMock()])
  })
  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  /** What the page told its console as errors, and every answer of 400 or more it got. */
  function watch(page: Page) {
    const consoleErrors: string[] = []
    const failed: string[] = []
    const requests: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text())
    })
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`)
    })
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`))
    return { consoleErrors, failed, requests, uncaught: pageErrors(page) }
  }

  it('stays free of console errors for seconds of polling while a call is under way, with no signing secret', async () => {
    await fetch(`${mock.origin}/_mock/reset`, { method: 'POST' })
    const account = mock.platform.demo.account.id
    const agents = await fetch(`${mock.origin}/_mock/accounts/${account}/agents`)
    const agent = ((await agents.json()) as { data: { id: string }[] }).data[0]
    const started = await fetch(`${mock.origin}/_mock/accounts/${account}/calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent?.id, ring_seconds: 2, duration_seconds: 60 }),
    })
    expect(started.status).toBe(201)

    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const seen = watch(page)
      await page.goto(`${mock.origin}/_mock/dashboard`)
      await page.locator('#vak-secret-status').getByText('No signing secret').waitFor({ timeout: 10_000 })
      await page.waitForTimeout(4000)

      const polls = seen.requests.filter((line) => line.endsWith(`/accounts/${account}/calls`)).length
      expect(polls, 'the calls panel polled while the call was under way').toBeGreaterThanOrEqual(3)
      expect(seen.consoleErrors).toEqual([])
      expect(seen.failed).toEqual([])
      expect(seen.uncaught).toEqual([])
      // Whether there is a secret is learnt once, not every second.
      const secretReads = seen.requests.filter((line) => line.endsWith('/webhook-secret'))
      expect(secretReads).toEqual([`GET /_mock/accounts/${account}/webhook-secret`])
    } finally {
      await context.close()
    }
  }, 30_000)
})
