import { createClock } from '../../mocks/engine/clock.ts'
import type { EngineResponse } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../../mocks/platform.ts'

/** A platform on a clock that stands still unless advanced, with the demo account's secret key. */
export async function frozenPlatform(options: MockPlatformOptions = {}) {
  const realNow = () => Date.UTC(2026, 2, 12, 14, 0, 0)
  const platform = await createMockPlatform({
    checkResponses: true,
    clock: createClock({ realNow }),
    ...options,
  })
  return { platform, key: platform.demo.secretKey ?? '', accountId: platform.demo.account.id }
}

export interface Answer {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies of many shapes
  body: any
  headers: Record<string, string>
}

/** Sends one request to the engine (no HTTP): `/v1/...` with the key, `/_mock/...` without. */
export async function send(
  platform: MockPlatform,
  method: string,
  path: string,
  options: { key?: string; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (options.key) headers.authorization = `Bearer ${options.key}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const response: EngineResponse = await platform.handle({
    method,
    url: path,
    headers,
    body: options.body === undefined ? null : JSON.stringify(options.body),
  })
  return { status: response.status, body: response.body, headers: response.headers }
}

/** Moves the mock clock forward through the control plane (which runs what falls due). */
export async function advance(platform: MockPlatform, seconds: number): Promise<void> {
  const answer = await send(platform, 'POST', '/_mock/clock/advance', { body: { seconds } })
  if (answer.status !== 200) throw new Error(`advance: ${answer.status} ${JSON.stringify(answer.body)}`)
}

/** An agent of the demo account, as v1 shows it. */
export async function firstAgent(platform: MockPlatform, key: string) {
  return (await send(platform, 'GET', '/v1/agents?limit=1', { key })).body.data[0]
}
