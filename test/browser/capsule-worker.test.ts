import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, type MockProcess, startMockProcess } from '../calls/mock-process.ts'
import { SKIP_BROWSER_TESTS, SKIP_NOTE } from './support/chromium.ts'
import { examplePagesPerTest } from './support/example-pages.ts'

/**
 * A capsule of the standalone mock (the built command) opened in the browser worker (`startMockWorker` of the
 * build, in the example app, in real Chromium), and the worker's own capsule opened back in a standalone mock.
 */
describe.skipIf(SKIP_BROWSER_TESTS)(`state capsules in the browser worker, in Chromium${SKIP_NOTE}`, () => {
  const pages = examplePagesPerTest({ ready: true, timeoutMs: 20_000 })
  let standalone: MockProcess
  let capsule: string
  let agentId: string
  const control = (mock: MockProcess) => mock.baseUrl.replace(/\/v1$/, '/_mock')

  beforeAll(async () => {
    standalone = await startMockProcess([], { built: true })
    const agent = await http(
      'POST',
      `${standalone.baseUrl}/agents`,
      {
        name: 'Agent from the standalone mock',
        voice: { provider: 'elevenlabs', voice_id: 'rachel' },
        llm: { provider: 'openai', model: 'gpt-4o-mini' },
      },
      standalone.keys.secret_key,
    )
    agentId = agent.body.id
    await http('POST', `${control(standalone)}/clock/advance`, { seconds: 3600 })
    capsule = await (await fetch(`${control(standalone)}/capsule`)).text()
  }, 60_000)
  afterAll(() => standalone?.stop())

  /** A request from the page, answered by the worker. */
  const fromPage = (method: string, path: string, options: { key?: string; body?: string } = {}) =>
    pages.page.evaluate(
      async ([m, p, key, body]) => {
        const headers: Record<string, string> = {}
        if (key) headers.authorization = `Bearer ${key}`
        if (body !== undefined) headers['content-type'] = 'application/json'
        const response = await fetch(p, { method: m, headers, body })
        return { status: response.status, text: await response.text() }
      },
      [method, path, options.key, options.body] as const,
    )

  it('opens the standalone mock’s capsule: the agent, the clock within seconds, the old key; kept over a reload', async () => {
    const opened = await fromPage('POST', '/_mock/capsule', { body: capsule })
    expect(opened.status).toBe(200)
    const openedAt = Date.now()
    // Where the standalone mock's clock stood when the capsule was taken, and real time since the opening.
    const takenAt = Date.parse(JSON.parse(capsule).clock.now)
    const check = async () => {
      const agent = await fromPage('GET', `/v1/agents/${agentId}`, { key: standalone.keys.secret_key })
      expect(agent.status).toBe(200)
      expect(JSON.parse(agent.text).name).toBe('Agent from the standalone mock')
      const clock = JSON.parse((await fromPage('GET', '/_mock/clock')).text)
      const expected = takenAt + (Date.now() - openedAt)
      expect(Math.abs(Date.parse(clock.now) - expected)).toBeLessThanOrEqual(2_000)
      expect(clock.offset_seconds).toBeGreaterThan(3500)
    }
    await check()
    await pages.page.reload()
    await pages.page.locator('body[data-ready="true"]').waitFor()
    await check()
  })

  it('refuses a damaged capsule with one line, and the page’s state stays as it was', async () => {
    const before = await fromPage('GET', '/_mock/capsule')
    const refused = await fromPage('POST', '/_mock/capsule', {
      body: capsule.replace('"capsule":1', '"capsule":3'),
    })
    expect(refused.status).toBe(422)
    expect(JSON.parse(refused.text).error.message).toMatch(/^Capsule version 3 is not one this mock opens/)
    const after = await fromPage('GET', '/_mock/capsule')
    const tables = (text: string) => JSON.stringify(JSON.parse(text).state.tables)
    expect(tables(after.text)).toBe(tables(before.text))
  })

  it('gives its own capsule, which opens in the standalone mock', async () => {
    await fromPage('POST', '/_mock/capsule', { body: capsule })
    const renamed = await fromPage('PATCH', `/v1/agents/${agentId}`, {
      key: standalone.keys.secret_key,
      body: JSON.stringify({ name: 'Renamed in the browser' }),
    })
    expect(renamed.status).toBe(200)
    const taken = await fromPage('GET', '/_mock/capsule')
    expect(taken.status).toBe(200)
    expect(taken.text).not.toMatch(/[sp]k-svc-[A-Za-z0-9]{12,}/)
    const other = await startMockProcess([], { built: true })
    try {
      const response = await fetch(`${control(other)}/capsule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: taken.text,
      })
      expect(response.status).toBe(200)
      const agent = await http(
        'GET',
        `${other.baseUrl}/agents/${agentId}`,
        undefined,
        standalone.keys.secret_key,
      )
      expect(agent.body.name).toBe('Renamed in the browser')
    } finally {
      await other.stop()
    }
  }, 60_000)
})
