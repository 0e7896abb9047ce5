import { describe, expect, it } from 'vitest'
import { answerProblems } from '../mock/support/contract-answer.ts'
import { SKIP_BROWSER_TESTS, SKIP_NOTE, screenshot } from './support/chromium.ts'
import { examplePagesPerTest } from './support/example-pages.ts'

interface PageAnswer {
  ok: boolean
  status?: number
  scenario?: string | null
  body?: unknown
  error?: string
  ms: number
}

/**
 * Scenarios in the browser worker (`startMockWorker`), in real Chromium: MSW's service worker hands each
 * request to the engine in the page, which carries out each effect (`delay()`, `HttpResponse.error()`, no
 * answer) on the page's own fetch.
 */
describe.skipIf(SKIP_BROWSER_TESTS)(`scenarios in the browser worker, in Chromium${SKIP_NOTE}`, () => {
  const pages = examplePagesPerTest({ ready: true })

  /** A control-plane call from the page (answered by the worker). */
  const control = (method: string, path: string, body?: unknown) =>
    pages.page.evaluate(
      async ([m, p, b]) => {
        const init: RequestInit = { method: m }
        if (b !== undefined) init.headers = { 'content-type': 'application/json' }
        if (b !== undefined) init.body = b
        const response = await fetch(`/_mock${p}`, init)
        return { status: response.status, body: await response.json() }
      },
      [method, path, body === undefined ? undefined : JSON.stringify(body)] as const,
    )

  /** v1 requests from the page with the demo secret key (read from the saved state's key values). */
  const v1 = (
    path: string,
    options: { method?: string; prefer?: string; timeoutMs?: number; count?: number; parallel?: number } = {},
  ) =>
    pages.page.evaluate(
      async ({ path, method, prefer, timeoutMs, count, parallel }) => {
        const saved = JSON.parse(sessionStorage.getItem('voice-api-kit:mock-state') ?? '{}')
        const headers: Record<string, string> = { authorization: `Bearer ${saved.demoKeys.secretKey}` }
        if (prefer) headers.prefer = prefer
        const one = async (): Promise<PageAnswer> => {
          const started = performance.now()
          try {
            const response = await fetch(`/v1${path}`, {
              method,
              headers,
              signal: timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined,
            })
            const body = await response.json()
            return {
              ok: true,
              status: response.status,
              scenario: response.headers.get('mock-scenario'),
              body,
              ms: performance.now() - started,
            }
          } catch (error) {
            return { ok: false, error: (error as Error).name, ms: performance.now() - started }
          }
        }
        const out: PageAnswer[] = []
        for (let i = 0; i < count; i += parallel)
          out.push(...(await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, one))))
        return out
      },
      {
        path,
        method: options.method ?? 'GET',
        prefer: options.prefer,
        timeoutMs: options.timeoutMs,
        count: options.count ?? 1,
        parallel: options.parallel ?? 5,
      },
    )

  const agentCount = async () =>
    ((await v1('/agents?limit=100'))[0]?.body as { data?: unknown[] } | undefined)?.data?.length

  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

  it('answers an injected status as the contract documents it, with Mock-Scenario, changing nothing', async () => {
    const before = (await v1('/agents?limit=100'))[0]?.body as { data: unknown[] }
    const created = await control('POST', '/scenarios', { operation: 'deleteAgent', status: 503, times: 1 })
    expect(created.status).toBe(201)
    const id = (before.data[0] as { id: string }).id
    const [answer] = await v1(`/agents/${id}`, { method: 'DELETE' })
    expect(answer).toMatchObject({ ok: true, status: 503, scenario: created.body.id })
    expect(answerProblems('deleteAgent', 503, answer?.body)).toEqual([])
    const after = (await v1('/agents?limit=100'))[0]?.body as { data: unknown[] }
    expect(after.data).toHaveLength(before.data.length)
  })

  it('holds answers back by the delay: the median added over 10 requests is within 20% of it', async () => {
    await v1('/user')
    // One at a time: the page runs the engine, so concurrent answers would queue behind each other.
    const without = median((await v1('/user', { count: 10, parallel: 1 })).map((a) => a.ms))
    await control('POST', '/scenarios', { operation: 'getUser', delay: { type: 'fixed', ms: 300 } })
    const answers = await v1('/user', { count: 10, parallel: 1 })
    expect(answers.every((a) => a.status === 200)).toBe(true)
    const added = median(answers.map((a) => a.ms)) - without
    console.info(
      `[scenarios] browser worker: fixed 300 ms, median added over 10 measured ${added.toFixed(1)} ms (${without.toFixed(1)} ms without)`,
    )
    expect(added).toBeGreaterThanOrEqual(240)
    expect(added).toBeLessThanOrEqual(360)
  })

  it('fails the fetch on reset, and changes nothing', async () => {
    await control('POST', '/scenarios', { operation: 'createAgent', network_error: 'reset' })
    const before = await agentCount()
    const [answer] = await v1('/agents', { method: 'POST' })
    expect(answer).toMatchObject({ ok: false, error: 'TypeError' })
    expect(await agentCount()).toBe(before)
  })

  it("leaves a request unanswered on timeout until the page's own timeout", async () => {
    await control('POST', '/scenarios', { operation: 'getUser', network_error: 'timeout' })
    const [answer] = await v1('/user', { timeoutMs: 800 })
    expect(answer).toMatchObject({ ok: false, error: 'TimeoutError' })
    expect(answer?.ms).toBeGreaterThanOrEqual(780)
    expect((await v1('/agents'))[0]?.status).toBe(200)
  })

  it('honours times and probability', async () => {
    await control('POST', '/scenarios', { operation: 'getUser', status: 502, times: 2 })
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await v1('/user'))[0]?.status)
    expect(statuses).toEqual([502, 502, 200, 200])
    await control('POST', '/scenarios', { operation: 'listCallLogs', status: 500, probability: 0 })
    expect((await v1('/call-logs', { count: 10 })).every((a) => a.status === 200)).toBe(true)
  })

  it('answers Prefer: code= for a documented status, and refuses an undocumented one with 400', async () => {
    const [preferred] = await v1('/agents/agt_missing', { prefer: 'code=401' })
    expect(preferred).toMatchObject({ status: 401, scenario: 'prefer' })
    expect(answerProblems('getAgent', 401, preferred?.body)).toEqual([])
    const [refused] = await v1('/agents', { prefer: 'code=201' })
    expect(refused?.status).toBe(400)
    expect((refused?.body as { error?: { param: string } } | undefined)?.error?.param).toBe('Prefer')
  })

  it("shows the app's error and loading states from its own controls (mock.scenarios in the page)", async () => {
    await pages.page.getByRole('button', { name: 'Make the agents list fail' }).click()
    await pages.page.locator('#agents-status[data-status="500"]').waitFor()
    await pages.page.locator('#agents .error-state', { hasText: 'could not be loaded (500)' }).waitFor()
    await screenshot(pages.page, 'example-app-agents-error')
    await pages.page.getByRole('button', { name: 'Make the agents list fail' }).click()
    await pages.page.locator('#agents-status[data-status="200"]').waitFor()
    await expect(pages.page.locator('#agents tbody tr').count()).resolves.toBeGreaterThan(0)

    await pages.page.getByRole('button', { name: /Slow the agents list down/ }).click()
    await pages.page.locator('#agents-status[data-status="loading"]').waitFor()
    await expect(pages.page.locator('#agents').getAttribute('aria-busy')).resolves.toBe('true')
    await screenshot(pages.page, 'example-app-agents-loading')
    const started = Date.now()
    await pages.page.locator('#agents-status[data-status="200"]').waitFor()
    expect(Date.now() - started).toBeGreaterThan(1200)
    await expect(
      pages.page.getByRole('button', { name: /Slow the agents list down/ }).getAttribute('aria-pressed'),
    ).resolves.toBe('true')
  })

  it('adds a 500 for listAgents in the dashboard panel: the app shows its error state until it is removed', async () => {
    await pages.page.getByRole('link', { name: /Manage API keys/ }).click()
    await pages.page.locator('body[data-ready="true"]').waitFor()
    await pages.page.getByLabel('Operation').selectOption('listAgents')
    await pages.page.getByLabel('Answer with').selectOption('500')
    await pages.page.getByRole('button', { name: 'Add scenario' }).click()
    const row = pages.page.locator('#vak-scenarios tbody tr', { hasText: 'listAgents' })
    await row.waitFor()
    await expect(row.textContent()).resolves.toContain('500 Internal error')

    await pages.page.getByRole('link', { name: 'Back to the app' }).click()
    await pages.page.locator('body[data-ready="true"]').waitFor()
    await expect(pages.page.locator('#agents-status').getAttribute('data-status')).resolves.toBe('500')
    await pages.page.locator('#agents .error-state').waitFor()

    await pages.page.getByRole('link', { name: /Manage API keys/ }).click()
    await pages.page.locator('body[data-ready="true"]').waitFor()
    await pages.page.getByRole('button', { name: /Remove scenario listAgents/ }).click()
    await pages.page.locator('#vak-scenarios tbody tr').first().waitFor({ state: 'detached' })
    await pages.page.getByRole('link', { name: 'Back to the app' }).click()
    await pages.page.locator('body[data-ready="true"]').waitFor()
    await expect(pages.page.locator('#agents-status').getAttribute('data-status')).resolves.toBe('200')
    await expect(pages.page.locator('#agents tbody tr').count()).resolves.toBeGreaterThan(0)
  })
})
