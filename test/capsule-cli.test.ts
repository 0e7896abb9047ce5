import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, type MockProcess, runCli, startMockProcess } from './calls/mock-process.ts'

/**
 * State capsules with the command users run (`bin/voice-api-kit.js`, the build in dist/): a capsule taken from
 * one standalone mock opens in another with `--from-capsule`, and a capsule that cannot be opened is refused
 * with one line before anything listens.
 */
describe('voice-api-kit mock --from-capsule (the build)', () => {
  let folder: string
  let first: MockProcess
  let capsuleFile: string
  let agentId: string
  const control = (mock: MockProcess) => mock.baseUrl.replace(/\/v1$/, '/_mock')

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'vak-capsule-cli-'))
    first = await startMockProcess([], { built: true })
    const agent = await http(
      'POST',
      `${first.baseUrl}/agents`,
      {
        name: 'Agent in a capsule',
        voice: { provider: 'elevenlabs', voice_id: 'rachel' },
        llm: { provider: 'openai', model: 'gpt-4o-mini' },
      },
      first.keys.secret_key,
    )
    expect(agent.status).toBe(201)
    agentId = agent.body.id
    expect((await http('POST', `${control(first)}/clock/advance`, { seconds: 3600 })).status).toBe(200)
    const capsule = await fetch(`${control(first)}/capsule`)
    expect(capsule.status).toBe(200)
    capsuleFile = join(folder, 'capsule.json')
    writeFileSync(capsuleFile, await capsule.text())
  }, 60_000)
  afterAll(async () => {
    await first?.stop()
    rmSync(folder, { recursive: true, force: true })
  })

  it('opens on another port with the agent, the clock within seconds, and the old demo secret key', async () => {
    const text = readFileSync(capsuleFile, 'utf8')
    const { secret_key, publishable_key } = first.keys as unknown as {
      secret_key: string
      publishable_key: string
    }
    for (const value of [secret_key, publishable_key]) {
      expect(value).toMatch(/^[sp]k-svc-/)
      expect(text).not.toContain(value.slice('sk-svc-'.length))
    }
    expect(text).not.toMatch(/[sp]k-svc-[A-Za-z0-9]{12,}|whsec_/)

    const second = await startMockProcess(['--from-capsule', capsuleFile], { built: true })
    try {
      expect(new URL(second.baseUrl).port).not.toBe(new URL(first.baseUrl).port)
      expect(second.output()).toContain(`capsule          ${capsuleFile} opened`)
      const agent = await http('GET', `${second.baseUrl}/agents/${agentId}`, undefined, first.keys.secret_key)
      expect(agent.status).toBe(200)
      expect(agent.body.name).toBe('Agent in a capsule')
      // Where the first mock's clock stood when the capsule was taken (an hour ahead), give or take the start.
      const takenAt = Date.parse(JSON.parse(text).clock.now)
      const there = await http('GET', `${control(second)}/clock`)
      expect(there.body.offset_seconds).toBeGreaterThan(3500)
      expect(Math.abs(Date.parse(there.body.now) - takenAt)).toBeLessThanOrEqual(5_000)
      expect((await http('GET', `${second.baseUrl}/user`, undefined, first.keys.secret_key)).status).toBe(200)
      // The keys file of the second mock holds no demo key value: the capsule carried none.
      expect(second.keys.secret_key).toBeNull()
    } finally {
      await second.stop()
    }
  }, 60_000)

  it('opens the same capsule in createMockApi of the build, whose own capsule opens in the standalone mock', async () => {
    // The package as users import it (its exports: dist/), not the sources; typed as the sources (the
    // specifier is a variable so that the type check does not depend on a build being there).
    const entry = 'voice-api-kit/mocks/node'
    const { createMockApi } = (await import(entry)) as typeof import('../mocks/node.ts')
    const { setupServer } = await import('msw/node')
    const api = await createMockApi({
      baseUrl: 'http://capsule.test/v1',
      capsule: readFileSync(capsuleFile, 'utf8'),
    })
    const server = setupServer(...api.handlers)
    server.listen({ onUnhandledRequest: 'bypass' })
    try {
      const agent = await http(
        'GET',
        `http://capsule.test/v1/agents/${agentId}`,
        undefined,
        first.keys.secret_key,
      )
      expect(agent.status).toBe(200)
      expect(agent.body.name).toBe('Agent in a capsule')
      const takenAt = Date.parse(JSON.parse(readFileSync(capsuleFile, 'utf8')).clock.now)
      const there = await http('GET', 'http://capsule.test/_mock/clock')
      expect(Math.abs(Date.parse(there.body.now) - takenAt)).toBeLessThanOrEqual(5_000)
      // No key value travelled: the demo keys are those of the mock the capsule came from.
      expect(api.secretKey).toBe('')

      const renamed = await http(
        'PATCH',
        `http://capsule.test/v1/agents/${agentId}`,
        { name: 'Renamed in Node' },
        first.keys.secret_key,
      )
      expect(renamed.status).toBe(200)
      const second = await startMockProcess([], { built: true })
      try {
        const opened = await http('POST', `${control(second)}/capsule`, await api.capsule())
        expect(opened.status).toBe(200)
        const agentThere = await http(
          'GET',
          `${second.baseUrl}/agents/${agentId}`,
          undefined,
          first.keys.secret_key,
        )
        expect(agentThere.body.name).toBe('Renamed in Node')
      } finally {
        await second.stop()
      }
    } finally {
      server.close()
    }
  }, 60_000)

  /** Runs the built command with `args` and returns its exit code and output once it has stopped. */
  async function refused(args: string[]) {
    const cli = runCli(['mock', '--port', '0', ...args], true)
    const timer = setTimeout(() => cli.child.kill('SIGKILL'), 30_000)
    const code = await cli.exit
    clearTimeout(timer)
    return { code, lines: cli.output().trim().split('\n') }
  }

  const write = (name: string, text: string) => {
    const path = join(folder, name)
    writeFileSync(path, text)
    return path
  }
  // biome-ignore lint/suspicious/noExplicitAny: a capsule edited by hand, of any shape
  const edited = (change: (capsule: any) => void) => {
    const capsule = JSON.parse(readFileSync(capsuleFile, 'utf8'))
    change(capsule)
    return JSON.stringify(capsule)
  }

  it.each([
    [
      'damaged',
      () => write('damaged.json', readFileSync(capsuleFile, 'utf8').slice(0, 5_000)),
      /The capsule is not valid JSON \(damaged or cut short, at character \d+\)/,
    ],
    [
      'of an unknown version',
      () =>
        write(
          'v9.json',
          edited((c) => {
            c.capsule = 9
          }),
        ),
      /Capsule version 9 is not one this mock opens \(it opens version 1\)/,
    ],
    [
      'holding an agent the contract refuses',
      () =>
        write(
          'bad-agent.json',
          edited((c) => {
            c.state.tables.agents[0][1].voice = 'loud'
          }),
        ),
      /The capsule's state is refused: table 'agents', record '[^']+', field 'voice'/,
    ],
    [
      'larger than 64 MiB',
      () => {
        const path = join(folder, 'huge.json')
        const fd = openSync(path, 'w')
        ftruncateSync(fd, 64 * 1024 * 1024 + 1)
        closeSync(fd)
        return path
      },
      /the file is 64\.0 MiB; a capsule holds at most 64 MiB\./,
    ],
    ['missing', () => join(folder, 'no-such-capsule.json'), /no such file\./],
  ])(
    'refuses a capsule %s with one line and exit code 1, before listening',
    async (_, make, message) => {
      const path = make()
      const { code, lines } = await refused(['--from-capsule', path])
      expect(code).toBe(1)
      const shown = lines.filter((l) => !l.includes('npm warn') && !l.includes('dist/ is missing or older'))
      expect(shown).toHaveLength(1)
      expect(shown[0]).toMatch(
        new RegExp(`^voice-api-kit: --from-capsule ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
      )
      expect(shown[0]).toMatch(message)
    },
    60_000,
  )

  it('refuses --from-capsule with --seed as a usage error (exit code 2)', async () => {
    const { code, lines } = await refused(['--from-capsule', capsuleFile, '--seed', '4'])
    expect(code).toBe(2)
    expect(lines.at(-1)).toBe(
      'voice-api-kit: Give --from-capsule or --seed, not both: the capsule brings its seed. See --help.',
    )
  }, 60_000)

  it('names --from-capsule in --help', async () => {
    const cli = runCli(['mock', '--help'], true)
    expect(await cli.exit).toBe(0)
    expect(cli.output()).toContain('--from-capsule <file>')
  })
})
