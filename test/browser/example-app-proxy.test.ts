import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../mocks/cli/mock-command.ts'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { startExampleApp, startStandaloneMock } from './support/servers.ts'

/**
 * The example app on its Vite dev server, proxying `/v1` and `/_mock` to the standalone mock
 * (`VITE_MOCK_PROXY`, the README's proxy setup): the app, the mock's dashboard and its Scenarios panel all
 * on the app's origin.
 */
describe.skipIf(SKIP_BROWSER_TESTS)(
  `examples/vite-app behind its dev-server proxy to the standalone mock, in Chromium${SKIP_NOTE}`,
  () => {
    let browser: Browser
    let mock: RunningMock & { origin: string }
    let app: { origin: string; close(): Promise<void> }
    let page: Page
    let errors: string[]
    const saved = { ...process.env }

    beforeAll(async () => {
      ;[browser, mock] = await Promise.all([launchChromium(), startStandaloneMock()])
      process.env.VITE_MOCK_PROXY = mock.origin
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

    async function openApp() {
      await page.goto(app.origin)
      await page.locator('body[data-ready="true"]').waitFor()
    }
    const agentsStatus = () => page.locator('#agents-status').getAttribute('data-status')

    it('adds a 500 for listAgents in the dashboard panel: the agents card shows its error state until it is removed', async () => {
      await openApp()
      await expect(page.locator('#mode').textContent()).resolves.toContain('through this dev server')
      await expect(agentsStatus()).resolves.toBe('200')

      await page.getByRole('link', { name: /Manage API keys/ }).click()
      await page.waitForURL(`${app.origin}/_mock/dashboard`)
      await page.getByLabel('Operation').selectOption('listAgents')
      await page.getByLabel('Answer with').selectOption('500')
      await page.getByRole('button', { name: 'Add scenario' }).click()
      await page.locator('#vak-scenarios tbody tr', { hasText: 'listAgents' }).waitFor()
      await expect(page.locator('.vak-status').textContent()).resolves.toContain('Scenario added')
      await screenshot(page, 'dashboard-scenarios-panel')

      await openApp()
      await expect(agentsStatus()).resolves.toBe('500')
      await page.locator('#agents .error-state').waitFor()
      await expect(page.locator('#agents-status').textContent()).resolves.toContain('mock scenario')

      await page.goto(`${app.origin}/_mock/dashboard`)
      // Keyboard: focus the row's Remove button and press Enter.
      await page.getByRole('button', { name: /Remove scenario listAgents/ }).focus()
      await page.keyboard.press('Enter')
      await page.locator('#vak-scenarios tbody tr').first().waitFor({ state: 'detached' })
      await expect(page.locator('#vak-scn-summary').textContent()).resolves.toContain('No scenario')

      await openApp()
      await expect(agentsStatus()).resolves.toBe('200')
      await expect(page.locator('#agents tbody tr').count()).resolves.toBeGreaterThan(0)
      expect(errors).toEqual([])
    })

    it("slows the agents list down from the app's own control, showing its loading state", async () => {
      await openApp()
      await page.getByRole('button', { name: /Slow the agents list down/ }).click()
      await page.locator('#agents-status[data-status="loading"]').waitFor()
      await page.locator('#agents-status[data-status="200"]').waitFor()
      const listed = await (await fetch(`${mock.origin}/_mock/scenarios`)).json()
      expect(listed.data).toEqual([
        expect.objectContaining({ operation: 'listAgents', delay: { type: 'fixed', ms: 2000 } }),
      ])
      await page.getByRole('button', { name: /Slow the agents list down/ }).click()
      await page.locator('#agents-slow[aria-pressed="false"]').waitFor()
      await expect((await fetch(`${mock.origin}/_mock/scenarios`)).json()).resolves.toMatchObject({
        data: [],
      })
      expect(errors).toEqual([])
    })
  },
)
