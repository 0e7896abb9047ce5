/**
 * Measures how many faults of a held-out fault set the contract suite catches (`npx tsx
 * scripts/fault-sets/measure.ts [--only name] [--explore-only] [--set held-out-3] [--seeds 1,2,3]`).
 *
 * For the correct engine, then for each fault: a fresh `createMockPlatform()`, wrapped with
 * `faultyHandler(platform, fault.make())`, and the whole contract suite run against it in this process as a
 * user's provisioned destructive run (`provision: 'mock'`, `destructive: true`), the requests handed straight
 * to the wrapped engine (`engineFetch`). Exploration runs with a fixed seed and a fixed number of sequences
 * (about what its default 10-second budget runs here), so that a run repeats.
 *
 * With `--seeds`, each fault is measured once per exploration seed (a single seed's figure moves by a few faults
 * between seeds): the table names the seeds that caught it, and the summary gives each seed's count, their mean
 * and how many faults some seed caught.
 *
 * A fault is caught when at least one check fails. The webhook checks need the mock over the network (their
 * receiver is posted to by the server): in this process they do not run (the table says how they ended).
 */

import type { CheckOutcome } from '../../contracts/runner/outcome.ts'
import { runChecks } from '../../contracts/runner/run-checks.ts'
import { createMockPlatform } from '../../mocks/platform.ts'
import { engineFetch } from '../../test/mutants/engine-fetch.ts'
import { type Fault, faultyHandler } from '../../test/reliability/support/faulty-handler.ts'

const BASE_URL = 'http://held-out.test/v1'
/** Exploration's seed and sequences: fixed, so that every run sends the same sequences. */
const SEED = Number(process.env.EXPLORE_SEED ?? 1)
const EXPLORE_SEQUENCES = Number(process.env.EXPLORE_SEQUENCES ?? 120)

interface NamedFault {
  name: string
  kind: string
  what: string
  make: () => Fault
}

const args = process.argv.slice(2)
const option = (name: string) => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const only = option('--only')
const exploreOnly = args.includes('--explore-only')
const setName = option('--set') ?? 'held-out-3'
const skipBaseline = args.includes('--no-baseline')
const seeds = (option('--seeds') ?? String(SEED)).split(',').map(Number)
if (seeds.some((seed) => !Number.isInteger(seed) || seed < 0))
  throw new Error(`--seeds takes whole numbers separated by commas, not '${option('--seeds')}'`)

const { faults } = (await import(`../../test/fault-sets/${setName}.ts`)) as { faults: NamedFault[] }

interface Result {
  outcomes: CheckOutcome[]
  failed: string[]
  ms: number
  error?: string
}

async function measure(fault: Fault, seed = seeds[0] as number): Promise<Result> {
  const started = performance.now()
  const platform = await createMockPlatform()
  const faulty = faultyHandler(platform, fault)
  try {
    const result = await runChecks(
      {
        baseUrl: BASE_URL,
        provision: 'mock',
        destructive: true,
        fetch: engineFetch(() => faulty, BASE_URL),
        seed,
        exploreSequences: EXPLORE_SEQUENCES,
      },
      { filter: exploreOnly ? (check) => check.area === 'explore' : undefined },
    )
    const failed = result.outcomes.filter((o) => o.status === 'failed').map((o) => o.check.id)
    return { outcomes: result.outcomes, failed, ms: performance.now() - started }
  } catch (error) {
    // The run could not even start (e.g. the session's probe refused): the suite noticed.
    return {
      outcomes: [],
      failed: ['(session)'],
      ms: performance.now() - started,
      error: error instanceof Error ? error.message : String(error),
    }
  } finally {
    await (platform as { close?: () => Promise<void> }).close?.()
  }
}

const pad = (text: string, width: number) =>
  text.length >= width ? text : text + ' '.repeat(width - text.length)

if (!skipBaseline) {
  const baseline = await measure({})
  const counts = new Map<string, number>()
  for (const o of baseline.outcomes) counts.set(o.status, (counts.get(o.status) ?? 0) + 1)
  console.log(
    `baseline (correct engine, same wrapping): ${baseline.outcomes.length} checks, ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ')}, ${(baseline.ms / 1000).toFixed(1)} s`,
  )
  for (const o of baseline.outcomes.filter((o) => o.status !== 'passed'))
    console.log(`  ${o.status}: ${o.check.id}${o.reason ? ` (${o.reason})` : ''}`)
  if (baseline.error) console.log(`  session error: ${baseline.error}`)
  for (const o of baseline.outcomes.filter((o) => o.status === 'failed'))
    console.log(`  FAILED ${o.check.id}: ${o.failure?.expected} / ${o.failure?.actual?.slice(0, 400)}`)
  if (baseline.failed.length > 0) {
    console.log('the correct engine fails: the measurement is void')
    process.exitCode = 1
  } else console.log('the correct engine passes every check that ran')
  console.log()
}

const selected = faults.filter((f) => !only || f.name === only)
if (only && selected.length === 0) throw new Error(`no fault named ${only}`)
const rows: { fault: NamedFault; result: Result; caughtAt: number[] }[] = []
for (const fault of selected) {
  const results = []
  for (const seed of seeds) results.push({ seed, result: await measure(fault.make(), seed) })
  const result = (results.find((r) => r.result.failed.length > 0) ?? results[0])?.result as Result
  const caughtAt = results.filter((r) => r.result.failed.length > 0).map((r) => r.seed)
  rows.push({ fault, result, caughtAt })
  const caught = caughtAt.length > 0
  const ms = results.reduce((sum, r) => sum + r.result.ms, 0)
  const at = seeds.length > 1 && caught ? ` (seeds ${caughtAt.join(', ')})` : ''
  console.log(
    `${pad(fault.name, 44)} ${pad(fault.kind, 12)} ${pad(caught ? 'caught' : 'MISSED', 7)} ${(ms / 1000).toFixed(1).padStart(5)} s  ${result.failed.join(', ')}${at}${result.error ? ` [${result.error.slice(0, 160)}]` : ''}`,
  )
  if (process.env.VERBOSE)
    for (const o of result.outcomes.filter((o) => o.status === 'failed'))
      console.log(`    ${o.check.id}: ${o.failure?.expected} / ${o.failure?.actual?.slice(0, 300)}`)
}

const caught = rows.filter((r) => r.caughtAt.length > 0)
const exploreFailed = (r: { result: Result }) =>
  r.result.outcomes.some((o) => o.check.area === 'explore' && o.status === 'failed')
const byExplore = rows.filter(exploreFailed)
const byExploreAlone = rows.filter((r) => exploreFailed(r) && r.result.failed.length === 1)
const percent = (n: number) => (rows.length ? `${((100 * n) / rows.length).toFixed(1)}%` : '-')
console.log()
const what = exploreOnly ? 'exploration only' : 'whole suite'
if (seeds.length > 1) {
  const perSeed = seeds.map((seed) => rows.filter((r) => r.caughtAt.includes(seed)).length)
  const mean = perSeed.reduce((a, b) => a + b, 0) / seeds.length
  console.log(
    `${what}, per seed: ${seeds.map((seed, i) => `seed ${seed} ${perSeed[i]}/${rows.length}`).join(', ')}; mean ${mean.toFixed(1)} (${percent(mean)}); some seed: ${caught.length}/${rows.length} (${percent(caught.length)})`,
  )
} else console.log(`${what}: ${caught.length}/${rows.length} caught (${percent(caught.length)})`)
if (!exploreOnly)
  console.log(
    `exploration among the failing checks: ${byExplore.length}/${rows.length} (${percent(byExplore.length)}); the only failing check: ${byExploreAlone.length}`,
  )
const missed = rows.filter((r) => r.caughtAt.length === 0).map((r) => r.fault.name)
if (missed.length) console.log(`missed: ${missed.join(', ')}`)
