import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../cli/mock/mock-command.ts'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { startStandaloneMock } from './support/servers.ts'

/** "Download capsule" and "Open capsule" in the standalone mock's dashboard, in real Chromium. */
describe.skipIf(SKIP_BROWSER_TESTS)(`the dashboard's state capsules in Chromium${SKIP_NOTE}`, () => {
  let browser: Browser
  let mock: RunningMock & { origin: string }
  /** Another mock (another seed), whose capsule the dashboard opens. */
  let elsewhere: RunningMock & { origin: string }
  let folder: string
  let context: BrowserContext
  let page: Page
  let errors: string[]

  beforeAll(async () => {
    ;[browser, mock, elsewhere] = await Promise.all([
      launchChromium(),
      startStandaloneMock(),
      startStandaloneMock(['--seed', '8']),
    ])
    folder = mkdtempSync(join(tmpdir(), 'vak-dashboard-capsule-'))
  })
  afterAll(async () => {
    await browser?.close()
    await mock?.close()
    await elsewhere?.close()
    rmSync(folder, { recursive: true, force: true })
  })
  beforeEach(async () => {
    await fetch(`${mock.origin}/_mock/reset`, { method: 'POST' })
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true })
    context.setDefaultTimeout(10_000)
    page = await context.newPage()
    errors = pageErrors(page)
    await page.goto(`${mock.origin}/_mock/dashboard`)
    await page.locator('#vak-keys tbody tr[data-key-id]').first().waitFor()
  })
  afterEach(async () => {
    expect(errors).toEqual([])
    await context.close()
  })

  const status = () => page.locator('.vak-status')
  const stateOf = (running: RunningMock) => JSON.stringify(running.platform.snapshot())

  it('downloads the whole state as a capsule file that holds no key value', async () => {
    const downloading = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Download capsule' }).click()
    const download = await downloading
    expect(download.suggestedFilename()).toMatch(/^capsule-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.json$/)
    const path = join(folder, 'downloaded.json')
    await download.saveAs(path)
    const text = readFileSync(path, 'utf8')
    const capsule = JSON.parse(text)
    expect(capsule).toMatchObject({ capsule: 1, webhook_secrets: 'omitted' })
    expect(capsule.state.tables.meta[0][1].account_id).toBe(mock.platform.demo.account.id)
    for (const value of [mock.platform.demo.secretKey, mock.platform.demo.publishableKey])
      expect(text).not.toContain(value?.slice('sk-svc-'.length))
    await status().filter({ hasText: 'Capsule downloaded' }).waitFor()
  })

  it('opens a capsule of another mock after confirmation: its accounts, keys and clock', async () => {
    await fetch(`${elsewhere.origin}/_mock/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 7200 }),
    })
    const path = join(folder, 'elsewhere.json')
    writeFileSync(path, await (await fetch(`${elsewhere.origin}/_mock/capsule`)).text())

    await page.locator('#vak-capsule-file').setInputFiles(path)
    const dialog = page.getByRole('dialog', { name: 'Open this capsule?' })
    await dialog.waitFor()
    await screenshot(page, 'dashboard-open-capsule', false)
    await dialog.getByRole('button', { name: 'Open capsule' }).click()
    await status().filter({ hasText: 'Capsule opened' }).waitFor()
    await expect(page.locator('#vak-clock-now ~ .vak-hint').first().textContent()).resolves.toMatch(
      /ahead of real time/,
    )
    const picker = page.locator('#vak-account')
    await expect(picker.inputValue()).resolves.toBe(elsewhere.platform.demo.account.id)
    const user = await fetch(`${mock.baseUrl}/user`, {
      headers: { authorization: `Bearer ${elsewhere.platform.demo.secretKey}` },
    })
    expect(user.status).toBe(200)
    const clock = await (await fetch(`${mock.origin}/_mock/clock`)).json()
    expect(clock.offset_seconds).toBeGreaterThan(7100)
  })

  it('says what is wrong with a damaged capsule in one line, and changes nothing', async () => {
    const path = join(folder, 'damaged.json')
    const text = await (await fetch(`${elsewhere.origin}/_mock/capsule`)).text()
    writeFileSync(path, text.slice(0, text.length - 100))
    const before = stateOf(mock)
    await page.locator('#vak-capsule-file').setInputFiles(path)
    await page
      .getByRole('dialog', { name: 'Open this capsule?' })
      .getByRole('button', { name: 'Open capsule' })
      .click()
    const refused = status().filter({ hasText: 'Could not open damaged.json' })
    await refused.waitFor()
    await expect(refused.textContent()).resolves.toMatch(
      /^Could not open damaged\.json: The request body is not valid JSON/,
    )
    await expect(refused.getAttribute('data-tone')).resolves.toBe('error')
    expect(stateOf(mock)).toBe(before)
  })

  it('leaves the state as it was when the confirmation is cancelled', async () => {
    const path = join(folder, 'cancelled.json')
    writeFileSync(path, await (await fetch(`${elsewhere.origin}/_mock/capsule`)).text())
    const before = stateOf(mock)
    await page.locator('#vak-capsule-file').setInputFiles(path)
    await page
      .getByRole('dialog', { name: 'Open this capsule?' })
      .getByRole('button', { name: 'Cancel' })
      .click()
    await page.getByRole('dialog').waitFor({ state: 'hidden' })
    expect(stateOf(mock)).toBe(before)
  })
})
