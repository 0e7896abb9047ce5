import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../cli/mock/mock-command.ts'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { startStandaloneMock } from './support/servers.ts'

describe.skipIf(SKIP_BROWSER_TESTS)(`GET /_mock/dashboard in Chromium${SKIP_NOTE}`, () => {
  let browser: Browser
  let mock: RunningMock & { origin: string }
  let context: BrowserContext
  let page: Page
  let errors: string[]

  beforeAll(async () => {
    ;[browser, mock] = await Promise.all([launchChromium(), startStandaloneMock()])
  })
  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })
  beforeEach(async () => {
    await fetch(`${mock.origin}/_mock/reset`, { method: 'POST' })
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: mock.origin })
    context.setDefaultTimeout(5_000)
    page = await context.newPage()
    errors = pageErrors(page)
    await openDashboard()
  })
  afterEach(async () => {
    expect(errors).toEqual([])
    await context.close()
  })

  async function openDashboard() {
    await page.goto(`${mock.origin}/_mock/dashboard`)
    await page.locator('#vak-keys tbody tr[data-key-id]').first().waitFor()
  }

  const v1 = (path: string, key: string, headers: Record<string, string> = {}) =>
    fetch(`${mock.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } })

  async function createKey(name: string, configure?: () => Promise<void>) {
    await page.getByLabel('Name', { exact: true }).fill(name)
    await configure?.()
    await page.getByRole('button', { name: 'Generate key' }).click()
    const field = page.getByLabel('Key value')
    await field.waitFor()
    return field.inputValue()
  }

  it('shows a new key once, with a copy button and the warning, and never again after a reload', async () => {
    await screenshot(page, 'dashboard-overview')
    const value = await createKey('Production backend (rotated)', async () => {
      await page.getByLabel('Delete resources').uncheck()
      await page.getByLabel('Allowed origins').fill('https://app.example.com')
    })
    expect(value).toMatch(/^sk-svc-[A-Za-z0-9]{40}$/)
    const reveal = page.locator('#vak-reveal')
    await expect(reveal.textContent()).resolves.toContain('this key cannot be viewed again')
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('vak-reveal')
    await screenshot(page, 'dashboard-new-key', false)

    await page.getByRole('button', { name: 'Copy' }).click()
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(value)
    await expect((await v1('/user', value, { origin: 'https://app.example.com' })).status).toBe(200)
    await expect((await v1('/user', value, { origin: 'https://evil.example' })).status).toBe(403)

    await page.getByRole('button', { name: 'Done, I have stored it' }).click()
    // Wait for the page to settle rather than read it once (CI machines are slow and shared).
    await reveal.waitFor({ state: 'hidden' })
    expect(await page.content()).not.toContain(value)
    const row = page.locator('#vak-keys tbody tr', { hasText: 'Production backend (rotated)' })
    await row.waitFor()
    await expect(row.textContent()).resolves.toContain(`sk-svc-...${value.slice(-4)}`)
    await expect(row.textContent()).resolves.toContain('Origins: https://app.example.com')
    await expect(row.textContent()).resolves.not.toContain('All (read and write)')

    await page.reload()
    await page.locator('#vak-keys tbody tr', { hasText: 'Production backend (rotated)' }).waitFor()
    expect(await page.content()).not.toContain(value)
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage, ...sessionStorage }) + document.cookie,
    )
    expect(stored).not.toContain(value)
    await expect(page.locator('#vak-reveal').isHidden()).resolves.toBe(true)
    const journal = await (await fetch(`${mock.origin}/_mock/journal?limit=1000`)).text()
    expect(journal).not.toContain(value)
  })

  it('asks before closing the value unread, and keeps it open on "Keep it open"', async () => {
    const value = await createKey('Nightly reporting')
    await page.getByRole('button', { name: 'Done, I have stored it' }).click()
    const dialog = page.getByRole('dialog', { name: 'Close without copying?' })
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Keep it open' }).click()
    await expect(page.getByLabel('Key value').inputValue()).resolves.toBe(value)
    await page.getByRole('button', { name: 'Done, I have stored it' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Close anyway' }).click()
    await page.locator('#vak-reveal').waitFor({ state: 'hidden' })
    expect(await page.content()).not.toContain(value)
  })

  it('revokes a key after confirmation; its next request gets 401 and shows among the failed requests', async () => {
    const value = await createKey('Old backend key')
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByRole('button', { name: 'Done, I have stored it' }).click()
    await expect((await v1('/agents', value)).status).toBe(200)

    await page.getByRole('button', { name: 'Revoke key Old backend key' }).click()
    const dialog = page.getByRole('dialog', { name: 'Revoke “Old backend key”?' })
    await dialog.waitFor()
    await screenshot(page, 'dashboard-revoke-dialog', false)
    await dialog.getByRole('button', { name: 'Revoke key' }).click()
    const row = page.locator('#vak-keys tbody tr', { hasText: 'Old backend key' })
    await row.locator('text=Revoked').waitFor()

    const after = await v1('/agents', value)
    expect(after.status).toBe(401)
    await expect(after.json()).resolves.toMatchObject({ error: { code: 'invalid_api_key' } })
    const keyId = (await row.getAttribute('data-key-id')) ?? ''
    await page.getByLabel('Key', { exact: true }).selectOption(keyId)
    const failure = page.locator('#vak-journal tbody tr[data-status="401"]')
    await failure.first().waitFor()
    await expect(failure.first().textContent()).resolves.toContain('GET /v1/agents')
    await expect(failure.first().textContent()).resolves.toContain('Old backend key')
    await screenshot(page, 'dashboard-journal-after-revoke')
  })

  it('shows rate-limit usage per window, switches the plan and moves the clock', async () => {
    await page.getByLabel('Plan').selectOption('free')
    await page.getByRole('button', { name: 'Switch plan' }).click()
    await page.locator('#vak-account option', { hasText: '(free)' }).first().waitFor({ state: 'attached' })
    const key = mock.platform.demo.publishableKey ?? ''
    const statuses = []
    for (let i = 0; i < 11; i++) statuses.push((await v1('/agents', key)).status)
    expect(statuses.filter((s) => s === 429)).toHaveLength(1)

    await page.locator('.vak-card:has(#vak-usage-title)').getByRole('button', { name: 'Refresh' }).click()
    const burst = page.locator('.vak-window[data-policy="burst"]')
    await burst.locator('text=Exhausted: 429').waitFor()
    await expect(burst.textContent()).resolves.toContain('10 of 10 used')
    await expect(page.locator('.vak-window[data-policy="hourly"]').textContent()).resolves.toContain(
      '10 of 100 used',
    )
    await screenshot(page, 'dashboard-rate-limits')

    await page.getByRole('button', { name: '+1 minute' }).click()
    await burst.locator('text=0 of 10 used').waitFor()
    // The clock panel refreshes on its own: wait for it rather than read it once.
    await page.locator('#vak-clock-now + p', { hasText: '1 min ahead' }).waitFor()
    expect((await v1('/agents', key)).status).toBe(200)
  })

  it('works with the keyboard: skip link first, visible focus, Escape cancels a revocation', async () => {
    await page.keyboard.press('Tab')
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe(
      'Skip to the API keys',
    )
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement as Element).outlineStyle,
    )
    expect(outline).not.toBe('none')

    const revoke = page.getByRole('button', { name: 'Revoke key Demo publishable key' })
    await revoke.focus()
    await page.keyboard.press('Enter')
    await page.getByRole('dialog').waitFor()
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Cancel')
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    await expect(page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).resolves.toBe(
      'Revoke key Demo publishable key',
    )
    const row = page.locator('#vak-keys tbody tr', { hasText: 'Demo publishable key' })
    await expect(row.textContent()).resolves.toContain('Active')

    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea')]
        .filter((field) => !(field as HTMLInputElement).labels?.length && !field.getAttribute('aria-label'))
        .map((field) => field.outerHTML),
    )
    expect(unlabelled).toEqual([])
  })

  it("lists every active scenario, past the control plane's page of 100", async () => {
    for (let i = 0; i < 130; i++)
      await fetch(`${mock.origin}/_mock/scenarios`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ operation: 'getUser', delay: { type: 'fixed', ms: 1 } }),
      })
    await page.reload()
    await page.locator('#vak-scenarios tbody tr').nth(129).waitFor()
    await expect(page.locator('#vak-scenarios tbody tr').count()).resolves.toBe(130)
  })

  it('shows names as text, never as markup', async () => {
    await createKey('<img src=x onerror="window.pwned=1">')
    await page.getByRole('button', { name: 'Copy' }).click()
    await page.getByRole('button', { name: 'Done, I have stored it' }).click()
    const row = page.locator('#vak-keys tbody tr', { hasText: '<img src=x' })
    await row.waitFor()
    await expect(row.locator('img').count()).resolves.toBe(0)
    await expect(page.evaluate(() => 'pwned' in window)).resolves.toBe(false)
  })

  it('explains why a key was refused', async () => {
    await page.getByLabel('Type').selectOption('publishable')
    await expect(page.getByLabel('Read call logs').isDisabled()).resolves.toBe(true)
    await page.getByLabel('Name', { exact: true }).fill('Widget')
    await page.getByLabel('Allowed IP addresses').fill('not-an-ip')
    await page.getByRole('button', { name: 'Generate key' }).click()
    const alert = page.locator('#vak-create-errors')
    await alert.getByText('is not an IP address or CIDR').waitFor()
    await expect(page.getByLabel('Allowed IP addresses').getAttribute('aria-invalid')).resolves.toBe('true')
    await expect(page.locator('#vak-reveal').isHidden()).resolves.toBe(true)
  })
})
