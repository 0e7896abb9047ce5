import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { createMockPlatform } from '../../mocks/platform.ts'
import { exploreInProcess, FIXED_SEEDS, withoutIds } from './support/explore-run.ts'
import { faultyPlatform, RELATIONAL_FAULTS, type RelationalFault } from './support/relational-faults.ts'
import { partsOf } from './support/world.ts'

const fault = (name: string) => {
  const found = RELATIONAL_FAULTS.find((f) => f.name === name)
  if (!found) throw new Error(`no fault ${name}`)
  return found
}

/** A key value of the run, whole: no report may hold one (a redacted `sk-svc-...WXYZ` is allowed). */
const KEY_VALUE = /\b[sp]k-svc-[A-Za-z0-9]{12,}/

describe('exploration against a faulty implementation (a deleted agent still readable by its ID)', () => {
  it('fails with the shrunk steps, the contract place that decides, and a script; the same with the same seed', async () => {
    // Real time stands still here, so that a replay meets every rate window and second as the first run did (on a
    // loaded machine a sequence's steps may otherwise straddle a second, and a difference fail to confirm in one run
    // only: the search then goes on from the next seed and finds another sequence). Only the mock clock's own moves
    // (the steps that move it) make time pass.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-02T09:30:00.250Z') })
    onTestFinished(() => {
      vi.useRealTimers()
    })
    const runOnce = async (seed: number) => {
      const platform = await createMockPlatform()
      const faulty = faultyPlatform(platform, fault('deleted-agent-readable'))
      const run = await exploreInProcess(faulty, { seed, sequences: 30 })
      return { ...run, keys: [...faulty.world.keys.keys()] }
    }
    // The first of the fixed seeds that finds it and shrinks it to the delete and its read back (each change of
    // generation moves what a seed draws; and a seed that meets it far into a long sequence may keep it long:
    // fast-check shrinks a sequence by its commands, and the shorter ones it tries need not delete that agent),
    // then the same seed again.
    const found = (run: Awaited<ReturnType<typeof runOnce>>) =>
      run.outcome.status === 'failed' && (run.result?.difference?.shrunkSteps ?? 99) <= 2
    let seed = FIXED_SEEDS[0] as number
    let first = await runOnce(seed)
    for (const next of FIXED_SEEDS.slice(1)) {
      if (found(first)) break
      seed = next
      first = await runOnce(seed)
    }
    const second = await runOnce(seed)
    expect(first?.outcome.status).toBe('failed')
    const failure = first?.outcome.failure
    expect(failure?.actual).toMatch(
      /^at step \d \(GET \/agents\/agt_\S+ (\(read back\)|\(key: [^)]+\), sent with the others at once)\), status: target 200, model 404/,
    )
    expect(failure?.actual).toContain(`--seed ${seed}`)
    // Shrunk: the delete (with its read back) is all it takes, after the setup's agents.
    expect(first?.result?.difference?.shrunkSteps).toBeLessThanOrEqual(2)
    const steps = failure?.steps ?? ''
    expect(steps).toMatch(/^\d\. .*DELETE \/agents\/agt_\S+ \(key: /m)
    expect(steps).toMatch(/differs at status: target 200, model 404 not_found_error\/resource_not_found/)
    expect(steps).toMatch(/decided by getAgent 404: #\/components\/responses\/NotFound "404 - /)
    const script = failure?.script ?? ''
    expect(script).toContain('"Authorization: Bearer $EXPLORE_KEY_SECRET"')
    expect(script).toMatch(/AGT_\d+=\$\(json "\$OUT\/s\d+\.json" 'id'\)/)
    // Only IDs become variables: the contract's words with an underscore (an integration's slug, an object
    // type, a status) stay as they are, wherever the target lists them.
    expect(script).not.toMatch(/^(?:GOOGLE|NOT|API|TEAM)_\d+=/m)
    for (const text of [steps, script, failure?.actual ?? '']) {
      expect(text).not.toMatch(KEY_VALUE)
      for (const key of first?.keys ?? []) expect(text).not.toContain(key)
    }
    // The script is a shell script (parsed by sh, not run here: the e2e test runs one against HTTP).
    const dir = mkdtempSync(join(tmpdir(), 'explore-script-'))
    try {
      writeFileSync(join(dir, 'replay.sh'), script)
      execFileSync('sh', ['-n', join(dir, 'replay.sh')])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    // Replayed with the same seed: the same sequence found and shrunk alike (IDs aside; whether real time
    // passed a second between two writes, and what the clock then read, may differ).
    const outline = (text: string) =>
      withoutIds(text)
        .split('\n')
        .filter((line) => /^\d+\. |^ {3}differs at /.test(line))
    expect(outline(second?.outcome.failure?.steps ?? '')).toEqual(outline(steps))
    expect(outline(steps).length).toBeGreaterThan(1)
  }, 120_000)
})

/** Error messages (free text: never compared) that quote the request's key: only the echo check can tell. */
const echoesKey: RelationalFault = {
  name: 'message-echoes-key',
  kind: 'keys',
  what: "a 404's message quotes the Authorization header it was asked with",
  make: () => async (request, next) => {
    const response = await next(request)
    const error = (response.body as { error?: { message?: string } } | null)?.error
    if (response.status === 404 && error?.message && request.headers.authorization)
      error.message += ` (asked with ${request.headers.authorization})`
    return response
  },
}

describe('exploration and the keys it makes', () => {
  it('fails a target whose answers echo a key the sequence made, without printing it', async () => {
    const faulty = faultyPlatform(await createMockPlatform(), echoesKey)
    const run = await exploreInProcess(faulty, { seed: 3, sequences: 20, shrinkSeconds: 0 })
    expect(run.outcome.status).toBe('failed')
    expect(run.outcome.failure?.actual).toContain('echoes a secret the suite sent')
    for (const text of [run.outcome.failure?.actual ?? '', run.outcome.failure?.steps ?? ''])
      for (const key of faulty.world.keys.keys()) expect(text).not.toContain(key)
  }, 60_000)
})

/** A proxy that holds back the body of every PATCH: the target answers 408, as the mock does to a stalled body. */
const bodiesHeldBack: RelationalFault = {
  name: 'patch-bodies-held-back',
  kind: 'order',
  what: 'something in front of the target never forwards the body of a PATCH',
  make: () => async (request, next) =>
    request.method === 'PATCH' && !partsOf(request).path.startsWith('/_mock')
      ? {
          status: 408,
          headers: { 'content-type': 'application/json' },
          body: {
            error: {
              type: 'invalid_request_error',
              code: 'invalid_parameter',
              message: 'The request did not arrive in time.',
            },
          },
        }
      : next(request),
}

describe('exploration and a request that does not arrive', () => {
  it('ends the sequence there, uncompared, when the target answers 408 (no answer of the contract)', async () => {
    const run = await exploreInProcess(faultyPlatform(await createMockPlatform(), bodiesHeldBack), {
      seed: 3,
      sequences: 20,
      shrinkSeconds: 0,
    })
    expect(run.outcome.status, run.outcome.failure?.actual).toBe('passed')
    expect(run.result?.requests).toBeGreaterThan(100)
  }, 60_000)
})

describe('exploration against the mock', () => {
  it('passes a fixed seed, telling what it explored (the in-process entry the mutation run can call)', async () => {
    const started = performance.now()
    const run = await exploreInProcess(await createMockPlatform(), { seed: 11, sequences: 12 })
    const ms = performance.now() - started
    console.log(
      `exploration in-process, seed 11, 12 sequences: ${(ms / 1000).toFixed(1)} s, ${run.result?.requests} requests`,
    )
    expect(run.outcome.status, run.outcome.failure?.actual).toBe('passed')
    expect(run.result?.sequences).toBe(12)
    expect(run.result?.requests).toBeGreaterThan(100)
    expect(run.outcome.notes.join('\n')).toMatch(
      /^explored 12 sequence\(s\), \d+ request\(s\) in [\d.]+ s, seed 11$/m,
    )
  }, 120_000)

  it('stops when the request budget is spent, and says so', async () => {
    const run = await exploreInProcess(await createMockPlatform(), { seed: 3, sequences: 50, budget: 150 })
    expect(run.outcome.status).toBe('passed')
    expect(run.result?.stopped).toMatch(/request budget/)
    expect(run.result?.sequences).toBeLessThan(50)
  }, 120_000)
})
