import { describe, expect, it } from 'vitest'
import { SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { examplePageOnStandaloneMock } from './support/example-pages.ts'

/**
 * The example app on its Vite dev server, proxying `/v1` and `/_mock` to the standalone mock
 * (`VITE_MOCK_PROXY`, the README's proxy setup): the app, the mock's dashboard and its Scenarios panel all
 * on the app's origin.
 */
describe.skipIf(SKIP_BROWSER_TESTS)(
  `examples/vite-app behind its dev-server proxy to the standalone mock, in Chromium${SKIP_NOTE}`,
  () => {
    const pages = examplePageOnStandaloneMock((mock) => ({ VITE_MOCK_PROXY: mock.origin }))

    async function openApp() {
      await pages.page.goto(pages.app.origin)
      await pages.page.locator('body[data-ready="true"]').waitFor()
    }
    const agentsStatus = () => pages.page.locator('#agents-status').getAttribute('data-status')

    it('adds a 500 for listAgents in the dashboard panel: the agents card shows its error state until it is removed', async () => {
      await openApp()
      await expect(pages.page.locator('#mode').textContent()).resolves.toContain('through this dev server')
      await expect(agentsStatus()).resolves.toBe('200')

      await pages.page.getByRole('link', { name: /Manage API keys/ }).click()
      await pages.page.waitForURL(`${pages.app.origin}/_mock/dashboard`)
      await pages.page.getByLabel('Operation').selectOption('listAgents')
      await pages.page.getByLabel('Answer with').selectOption('500')
      await pages.page.getByRole('button', { name: 'Add scenario' }).click()
      await pages.page.locator('#vak-scenarios tbody tr', { hasText: 'listAgents' }).waitFor()
      // The dashboard announces in the next animation frame, after the table is drawn: wait for it.
      await pages.page.locator('.vak-status').filter({ hasText: 'Scenario added' }).waitFor()
      await screenshot(pages.page, 'dashboard-scenarios-panel')

      await openApp()
      await expect(agentsStatus()).resolves.toBe('500')
      await pages.page.locator('#agents .error-state').waitFor()
      await expect(pages.page.locator('#agents-status').textContent()).resolves.toContain('mock scenario')

      await pages.page.goto(`${pages.app.origin}/_mock/dashboard`)
      // Keyboard: focus the row's Remove button and press Enter.
      await pages.page.getByRole('button', { name: /Remove scenario listAgents/ }).focus()
      await pages.page.keyboard.press('Enter')
      await pages.page.locator('#vak-scenarios tbody tr').first().waitFor({ state: 'detached' })
      await expect(pages.page.locator('#vak-scn-summary').textContent()).resolves.toContain('No scenario')

      await openApp()
      await expect(agentsStatus()).resolves.toBe('200')
      await expect(pages.page.locator('#agents tbody tr').count()).resolves.toBeGreaterThan(0)
      expect(pages.errors).toEqual([])
    })

    it("slows the agents list down from the app's own control, showing its loading state", async () => {
      // Starts from no scenario whatever the test before left.
      await fetch(`${pages.mock.origin}/_mock/scenarios`, { method: 'DELETE' })
      await openApp()
      await pages.page.getByRole('button', { name: /Slow the agents list down/ }).click()
      await pages.page.locator('#agents-status[data-status="loading"]').waitFor()
      await pages.page.locator('#agents-status[data-status="200"]').waitFor()
      const listed = await (await fetch(`${pages.mock.origin}/_mock/scenarios`)).json()
      expect(listed.data).toEqual([
        expect.objectContaining({ operation: 'listAgents', delay: { type: 'fixed', ms: 2000 } }),
      ])
      await pages.page.getByRole('button', { name: /Slow the agents list down/ }).click()
      await pages.page.locator('#agents-slow[aria-pressed="false"]').waitFor()
      await expect((await fetch(`${pages.mock.origin}/_mock/scenarios`)).json()).resolves.toMatchObject({
        data: [],
      })
      expect(pages.errors).toEqual([])
    })
  },
)
