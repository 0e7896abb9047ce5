import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createContractReporter } from '../../cli/contract/contract-reporter.ts'
import { runChecks } from '../../contracts/runner/run-checks.ts'
import { alteredMock } from '../support/altered-mock.ts'
import { launchChromium, pageErrors, SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'

const BASE_URL = 'http://report.test/v1'

/**
 * A run of the whole suite against the mock with two faults an implementation could have: a Basic challenge
 * when no key is sent, and an integration missing from the list. The report is written by the command's
 * reporter.
 */
async function writeReport() {
  const { fetch } = await alteredMock(BASE_URL, [
    {
      headers: (h: Headers, request: Request) => {
        if (h.has('www-authenticate') && !request.headers.has('authorization'))
          h.set('www-authenticate', 'Basic realm="api"')
      },
      body: (body: unknown, request: Request) => {
        const list = body as { object?: string; data?: unknown[] }
        return new URL(request.url).pathname.endsWith('/integrations') && list.object === 'list'
          ? { ...list, data: list.data?.slice(1) }
          : body
      },
    },
  ])
  const path = join(mkdtempSync(join(tmpdir(), 'contract-html-')), 'report.html')
  const reporter = createContractReporter({
    header: `Contract suite against ${BASE_URL} (keys provisioned on the mock, destructive)`,
    reporters: ['html'],
    outputs: { html: path },
    write: () => {},
  })
  const secrets: string[] = []
  // The webhooks area needs the mock over the network (it is not applicable with a custom fetch): left out.
  const areas = ['responses', 'authentication', 'authorization', 'resources', 'bad-input', 'rate-limits']
  const result = await runChecks(
    { baseUrl: BASE_URL, provision: 'mock', destructive: true, fetch, areas },
    {
      onOpen: (session) => {
        secrets.push(...session.keys.secrets())
        reporter.onOpen(session)
      },
      onOutcome: (outcome) => reporter.onOutcome(outcome),
    },
  )
  expect(reporter.finish(result, [])).toEqual([])
  return { path, result, secrets }
}

describe.skipIf(SKIP_BROWSER_TESTS)(`the HTML report of the contract suite in Chromium${SKIP_NOTE}`, () => {
  let browser: Browser
  let page: Page
  let errors: string[]
  let report: Awaited<ReturnType<typeof writeReport>>
  const requested: string[] = []

  beforeAll(async () => {
    ;[browser, report] = await Promise.all([launchChromium(), writeReport()])
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    errors = pageErrors(page)
    page.on('request', (request) => void requested.push(request.url()))
    await page.goto(pathToFileURL(report.path).href)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })

  it('is one self-contained file: no request but its own, no script, no external style or image', async () => {
    expect(requested).toEqual([pathToFileURL(report.path).href])
    expect(await page.locator('script, link, img, iframe').count()).toBe(0)
    expect(errors).toEqual([])
  })

  it('shows the verdict, what the run cost and its coverage figure at the top', async () => {
    await screenshot(page, 'contract-report-top', false)
    const failed = report.result.outcomes.filter((o) => o.status === 'failed').length
    expect(failed).toBeGreaterThan(1)
    await expect(page.locator('#verdict').textContent()).resolves.toMatch(
      new RegExp(`^Failed: \\d+ passed, ${failed} failed$`),
    )
    const figures = await page.locator('dl.figures').innerText()
    expect(figures).toMatch(/Requests\s+\d+ sent to the API/)
    const { exercised, documented } = report.result.coverage
    expect(figures).toContain(`${exercised} of ${documented} documented (operation, status) pairs`)
  })

  it('groups the results by area, with a link to each', async () => {
    const areas = await page.locator('section.area h2').allInnerTexts()
    expect(areas.map((a) => a.replace(/ \(.*$/, ''))).toEqual([
      'Responses',
      'Authentication',
      'Authorization',
      'Resources',
      'Bad input',
      'Rate limits',
    ])
    await page.getByRole('link', { name: 'Authentication' }).click()
    expect(page.url()).toMatch(/#area-authentication$/)
    const rows = page.locator('#area-authentication tbody tr')
    expect(await rows.count()).toBe(
      report.result.outcomes.filter((o) => o.check.area === 'authentication').length,
    )
  })

  it('lays out each failure: expectation, request, response and a curl repro with the keys redacted', async () => {
    const failure = page.locator('details.failure', { hasText: 'without an error attribute' })
    await failure.scrollIntoViewIfNeeded()
    await screenshot(page, 'contract-report-failure', false)
    const text = await failure.innerText()
    expect(text).toMatch(/Expected: a response that conforms to the contract/)
    expect(text).toMatch(/Actual: header www-authenticate: "Basic realm=\\"api\\"" must match pattern/)
    expect(text).toMatch(/Request\s+> GET http:\/\/report\.test\/v1\/user/)
    expect(text).toMatch(/Response\s+< 401/)
    expect(text).toMatch(/Reproduce with curl\s+curl -sS -i 'http:\/\/report\.test\/v1\/user'/)
    const catalog = await page.locator('details.failure', { hasText: 'lists the whole catalog' }).innerText()
    expect(catalog).toMatch(/Expected: the catalog .*, each once, in any order/)
    expect(catalog).toMatch(
      /Reproduce with curl\s+curl -sS -i 'http:\/\/report\.test\/v1\/integrations' -H 'Authorization: Bearer sk-svc-\.\.\.[A-Za-z0-9]{4}'/,
    )
    const html = readFileSync(report.path, 'utf8')
    for (const secret of report.secrets) expect(html).not.toContain(secret)
  })

  it('shows the coverage matrix of operations x documented statuses that the run exercised', async () => {
    const matrix = page.locator('#coverage table.matrix')
    await matrix.scrollIntoViewIfNeeded()
    await screenshot(page, 'contract-report-coverage', false)
    expect(await matrix.locator('tbody tr').count()).toBe(18)
    const getUser = matrix.locator('tbody tr', { hasText: 'getUser' })
    expect(await getUser.locator('td.hit').count()).toBeGreaterThanOrEqual(3)
    const { exercised, documented } = report.result.coverage
    expect(await matrix.locator('td.hit').count()).toBe(exercised)
    expect(await matrix.locator('td.hit, td.miss').count()).toBe(documented)
    await expect(page.locator('#coverage p').first().textContent()).resolves.toContain(
      `${exercised} of ${documented} documented (operation, status) pairs`,
    )
  })
})
