import type { ApiClient } from '../http/client.ts'
import type { Provisioned } from '../provision/provision-mock.ts'
import { mapConcurrently } from './map-concurrently.ts'
import type { TeardownReport } from './outcome.ts'

/** Requests teardown sends at once: what the run created is removed in a few round trips, not one per object. */
const AT_ONCE = 16

/**
 * Remembers every object the run created (by its path) and removes them at the end, newest first (several at
 * a time), whether the checks passed or not, then runs the checks' deferred steps (several at a time: each
 * undoes what one check made) and undoes provisioning. Only tracked objects are ever deleted: the run never
 * touches anything else.
 */
export function createTeardown(client: ApiClient, provisioned: Provisioned | undefined) {
  const tracked = new Map<string, string>()
  const deferred: (() => Promise<void>)[] = []
  let done: TeardownReport | undefined

  return {
    track(path: string, key: string): void {
      tracked.set(path, key)
    },
    untrack(path: string): void {
      tracked.delete(path)
    },
    defer(undo: () => Promise<void>): void {
      deferred.push(undo)
    },
    async run(): Promise<TeardownReport> {
      if (done) return done
      const report: TeardownReport = { removed: 0, problems: [], notes: [] }
      await mapConcurrently([...tracked].reverse(), AT_ONCE, async ([path, key]) => {
        try {
          const exchange = await client.send({ method: 'DELETE', path, key, accept429: false })
          const status = exchange.response.status
          if (status >= 200 && status < 300) report.removed++
          else if (status !== 404) report.problems.push(`DELETE ${path} answered ${status}`)
        } catch (error) {
          report.problems.push(`DELETE ${path}: ${error instanceof Error ? error.message : String(error)}`)
        }
      })
      tracked.clear()
      const undo = async (step: () => Promise<void>) => {
        try {
          await step()
        } catch (error) {
          report.problems.push(`undo provisioning: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
      await mapConcurrently(deferred, AT_ONCE, undo)
      await Promise.all((provisioned?.undo ?? []).map(undo))
      if (provisioned) {
        try {
          report.notes.push(...(await provisioned.closingNotes()))
        } catch (error) {
          report.problems.push(
            `reading the mock after teardown: ${error instanceof Error ? error.message : String(error)}`,
          )
        }
      }
      done = report
      return report
    },
  }
}
