/**
 * Child process of the storage bench: a platform with `callLogs` seeded call logs on the embedded file store
 * (or in memory), in-process. Times sequential durable writes (POST /v1/agents and DELETE of the agent it made, in
 * turn: each waits for its fsync), reads
 * alone (GET /v1/agents), and the same reads while a writer keeps writing. Prints `RESULT <json>`.
 *   storage-child.ts <callLogs> <file|memory> <writes> <reads>
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StateStore } from '../../mocks/engine/state/store.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { createFileStore } from '../../mocks/stores/file/file-store.ts'
import { round, summarize } from './stats.ts'

const callLogs = Number(process.argv[2] ?? 1000)
const kind = process.argv[3] === 'memory' ? 'memory' : 'file'
const writes = Number(process.argv[4] ?? 500)
const reads = Number(process.argv[5] ?? 2000)

const folder = mkdtempSync(join(tmpdir(), 'vak-bench-store-'))
const path = join(folder, 'state.json')
const store: StateStore | undefined = kind === 'file' ? createFileStore(path) : undefined
const started = performance.now()
const platform = await createMockPlatform({ seedSize: { callLogs }, store })
const openMs = performance.now() - started
const authorization = `Bearer ${platform.demo.secretKey}`
await platform.handle({
  method: 'PATCH',
  url: `/_mock/accounts/${platform.demo.account.id}`,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ limits: { hourly: 100_000_000, burst: 100_000_000 } }),
})

const body = JSON.stringify({
  name: 'Bench agent',
  voice: { provider: 'elevenlabs', voice_id: 'rachel' },
  llm: { provider: 'openai', model: 'gpt-4o' },
})
/**
 * One durable write: creating an agent, or deleting the one created by the write before, in turn (so that
 * however many writes run, the account stays far below its 1,000 agents; both kinds change one record).
 */
let created: string | undefined
async function write(): Promise<{ status: number }> {
  const answer = created
    ? await platform.handle({
        method: 'DELETE',
        url: `/v1/agents/${created}`,
        headers: { authorization },
        body: null,
      })
    : await platform.handle({
        method: 'POST',
        url: '/v1/agents',
        headers: { authorization, 'content-type': 'application/json' },
        body,
      })
  if (answer.status >= 300) throw new Error(`bench write answered ${answer.status}`)
  created = created ? undefined : (answer.body as { id: string }).id
  return answer
}
const read = () =>
  platform.handle({ method: 'GET', url: '/v1/agents?limit=20', headers: { authorization }, body: null })

async function timed(count: number, step: () => Promise<{ status: number }>): Promise<number[]> {
  const durations: number[] = []
  for (let i = 0; i < count; i++) {
    const at = performance.now()
    const answer = await step()
    durations.push(performance.now() - at)
    if (answer.status >= 300) throw new Error(`bench step answered ${answer.status}`)
  }
  return durations
}

for (let i = 0; i < 20; i++) await write()
const writeLatency = summarize(await timed(writes, write))
const readAlone = summarize(await timed(reads, read))
let writing = true
let concurrentWrites = 0
const writer = (async () => {
  while (writing) {
    await write()
    concurrentWrites++
    // A writer of its own: with the memory store a write never waits for I/O, so it yields here.
    await new Promise((resolve) => setImmediate(resolve))
  }
})()
const readWithWrites = summarize(
  await timed(reads, async () => {
    const answer = await read()
    // Let the writer's fsyncs interleave with the reads, as concurrent clients would.
    await new Promise((resolve) => setImmediate(resolve))
    return answer
  }),
)
writing = false
await writer
const logBytes = kind === 'file' ? statSync(`${path}.log`).size : 0
const snapshotBytes = kind === 'file' ? statSync(path).size : 0
await platform.close()
rmSync(folder, { recursive: true, force: true })
const ms = (value: number) => round(value, 3)
console.log(
  `RESULT ${JSON.stringify({
    callLogs,
    store: kind,
    openMs: round(openMs, 0),
    snapshotMb: round(snapshotBytes / 1024 / 1024, 1),
    logKbPerWrite: round(logBytes / 1024 / (writes + concurrentWrites + 20), 2),
    write: { samples: writeLatency.samples, p50: ms(writeLatency.p50), p99: ms(writeLatency.p99) },
    readAlone: { samples: readAlone.samples, p50: ms(readAlone.p50), p99: ms(readAlone.p99) },
    readWithWrites: {
      samples: readWithWrites.samples,
      p50: ms(readWithWrites.p50),
      p99: ms(readWithWrites.p99),
      concurrentWrites,
    },
  })}`,
)
