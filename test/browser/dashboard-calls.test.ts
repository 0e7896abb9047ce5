import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../cli/mock/mock-command.ts'
import { startReceiver } from '../calls/receiver.ts'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { startStandaloneMock } from './support/servers.ts'

describe.skipIf(SKIP_BROWSER_TESTS)(
  `the dashboard's Calls and webhooks panel in Chromium${SKIP_NOTE}`,
  () => {
    let browser: Browser
    let mock: RunningMock & { origin: string }
    let receiver: Awaited<ReturnType<typeof startReceiver>>
    let context: BrowserContext
    let page: Page
    let errors: string[]

    beforeAll(async () => {
      ;[browser, mock, receiver] = await Promise.all([
        launchChromium(),
        startStandaloneMock(),
        startReceiver([500, 200]),
      ])
    })
    afterAll(async () => {
      await browser?.close()
      await mock?.close()
      await receiver?.close()
    })
    beforeEach(async () => {
      await fetch(`${mock.origin}/_mock/reset`, { method: 'POST' })
      context = await browser.newContext({ viewport: { width: 1400, height: 1000 } })
      context.setDefaultTimeout(10_000)
      page = await context.newPage()
      errors = pageErrors(page)
    })
    afterEach(async () => {
      expect(errors).toEqual([])
      await context.close()
    })

    it('starts a call, shows its stages, creates the secret once, and lists deliveries with each attempt', async () => {
      const key = mock.platform.demo.secretKey ?? ''
      const agents = await (
        await fetch(`${mock.baseUrl}/agents?limit=1`, { headers: { authorization: `Bearer ${key}` } })
      ).json()
      const agent = (agents as { data: { id: string; name: string }[] }).data[0]
      if (!agent) throw new Error('no agent')
      await fetch(`${mock.baseUrl}/agents/${agent.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ webhook_url: receiver.url, webhook_events: ['call.started', 'call.ended'] }),
      })
      await page.goto(`${mock.origin}/_mock/dashboard`)
      const panel = page.locator('#vak-calls')
      await panel.getByLabel('Agent').locator(`option[value="${agent.id}"]`).waitFor({ state: 'attached' })
      await expect(panel.locator('#vak-call-agent-hint').textContent()).resolves.toContain(receiver.url)

      // The secret: created with the keyboard, shown once, gone once dismissed.
      await panel.getByRole('button', { name: 'Create secret' }).focus()
      await page.keyboard.press('Enter')
      const value = await panel.getByLabel('Signing secret').inputValue()
      expect(value).toMatch(/^whsec_/)
      await panel.getByRole('button', { name: 'Done' }).click()
      expect(await page.content()).not.toContain(value)
      await panel.locator('#vak-secret-status', { hasText: 'signed with a secret' }).waitFor()

      // A short call, started from the form with the keyboard.
      await panel.getByLabel('Agent').selectOption(agent.id)
      await panel.getByLabel('Rings (s)').fill('1')
      await panel.getByLabel('Talks (s)').fill('2')
      await panel.getByLabel('Talks (s)').press('Enter')
      const row = panel.locator('#vak-call-list tbody tr').first()
      const seen = new Set<string>()
      for (const status of ['ringing', 'in_progress', 'completed']) {
        await row.and(page.locator(`[data-status="${status}"]`)).waitFor()
        seen.add(status)
      }
      expect([...seen]).toEqual(['ringing', 'in_progress', 'completed'])

      // call.started failed once (500), then succeeded on its retry 5 s later; call.ended waited for it.
      const started = panel.locator('#vak-deliveries tr[data-event="call.started"]')
      await started.and(page.locator('[data-status="succeeded"]')).waitFor({ timeout: 15_000 })
      await expect(started.locator('li').count()).resolves.toBe(2)
      await expect(started.textContent()).resolves.toContain('answered 500')
      await panel.locator('#vak-deliveries tr[data-event="call.ended"][data-status="succeeded"]').waitFor()
      await screenshot(page, 'dashboard-calls', true)

      // Redelivery from the panel.
      await panel.getByRole('button', { name: /Redeliver call.ended/ }).click()
      await panel.locator('#vak-deliveries tr[data-event="call.ended"] li').nth(1).waitFor()
      expect(receiver.received.length).toBeGreaterThanOrEqual(4)
    }, 40_000)
  },
)
