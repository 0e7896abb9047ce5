import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { capsuleFileName } from '../cli/contract/contract-reporter.ts'
import { readCapsule } from '../mocks/engine/capsule/read-capsule.ts'
import { contractDocuments, createMockPlatform, type MockPlatform } from '../mocks/platform.ts'
import { createHttpServer, listen } from '../mocks/server/http-server.ts'
import { runCommand } from './support/contract-command.ts'

/**
 * A contract run against the mock whose check fails leaves the mock's capsule of the moment before that check
 * beside its reports, linked from the HTML report. The mock here reads agents back renamed (a defect), which
 * the check `resources/agents/create-read` catches.
 */
describe('voice-api-kit contract --provision mock: the capsule before a failed check', () => {
  let platform: MockPlatform
  let server: Server
  let baseUrl: string
  let dir: string
  let run: Awaited<ReturnType<typeof runCommand>>

  beforeAll(async () => {
    platform = await createMockPlatform({ webhookDeliveries: true })
    server = createHttpServer(() => ({
      async handle(request) {
        const response = await platform.handle(request)
        const readsAgent = request.method === 'GET' && /^\/v1\/agents\/agt_[^/?]+$/.test(request.url)
        if (readsAgent && response.status === 200)
          return { ...response, body: { ...(response.body as object), name: 'Renamed on the way out' } }
        return response
      },
    }))
    baseUrl = `http://127.0.0.1:${(await listen(server, 0, '127.0.0.1')).port}/v1`
    dir = mkdtempSync(join(tmpdir(), 'contract-capsules-'))
    run = await runCommand([
      '--base-url',
      baseUrl,
      '--provision',
      'mock',
      '--destructive',
      '--area',
      'resources',
      '--reporter',
      'summary,html',
      '--output',
      `html=${join(dir, 'report.html')}`,
    ])
  }, 120_000)
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
    rmSync(dir, { recursive: true, force: true })
  })

  const file = capsuleFileName('resources/agents/create-read')

  it('writes the capsule of the failed check beside the HTML report, and says where', () => {
    expect(run.code).toBe(1)
    expect(file).toBe('capsule-resources_agents_create-read.json')
    expect(readdirSync(dir)).toContain(file)
    expect(run.stdout).toContain(
      `Capsule of the mock before resources/agents/create-read written to ${join(dir, file)}`,
    )
    // One capsule per failed check, none for the others.
    const failed = [...run.stdout.matchAll(/Capsule of the mock before (\S+) written/g)].map((m) => m[1])
    expect(
      readdirSync(dir)
        .filter((name) => name.startsWith('capsule-'))
        .sort(),
    ).toEqual(failed.map((id) => capsuleFileName(id ?? '')).sort())
  })

  it('holds the state before the check: the run’s accounts, not yet the agent the check created', () => {
    const text = readFileSync(join(dir, file), 'utf8')
    const { capsule } = readCapsule(text, contractDocuments.v1)
    const accounts = capsule.state.tables.accounts ?? []
    // The run provisions its own accounts before the first check and removes them at the end.
    expect(accounts.length).toBeGreaterThan(1)
    expect(platform.accounts.list()).toHaveLength(1)
    const failure = run.stdout.slice(run.stdout.indexOf('reads back the same agent'))
    const created = /\/v1\/agents\/(agt_[A-Za-z0-9]+)/.exec(failure)?.[1]
    expect(created).toBeDefined()
    expect(text).toContain('"agt_')
    expect(text).not.toContain(created)
    expect(text).not.toMatch(/[sp]k-svc-[A-Za-z0-9]{12,}/)
  })

  it('links the capsule from the failure in the HTML report', () => {
    const html = readFileSync(join(dir, 'report.html'), 'utf8')
    const failure = html.slice(html.indexOf('id="resources/agents/create-read"'))
    expect(failure.slice(0, failure.indexOf('</details>'))).toContain(
      `<a href="${file}" download>${file}</a>: the mock's whole state before this check. Start a mock from it with <code>voice-api-kit mock --from-capsule ${file}</code>`,
    )
  })
})
