import { describe, expect, it } from 'vitest'
import { createScheduler } from '../../mocks/engine/schedule/scheduler.ts'
import { createState } from '../../mocks/engine/state/state.ts'

function setup() {
  const state = createState()
  const errors: string[] = []
  const scheduler = createScheduler(state, (message) => errors.push(message))
  const ran: string[] = []
  scheduler.on('note', (job) => ran.push(`${job.ref}@${job.at}`))
  return { state, scheduler, ran, errors }
}

describe('createScheduler', () => {
  it('runs the jobs due at now or before, earliest first, ties in the order they were scheduled', () => {
    const { scheduler, ran } = setup()
    scheduler.add(2000, 'note', 'b')
    scheduler.add(1000, 'note', 'a')
    scheduler.add(2000, 'note', 'c')
    scheduler.add(2001, 'note', 'later')
    expect(scheduler.nextAt()).toBe(1000)
    expect(scheduler.runDue(2000)).toBe(3)
    expect(ran).toEqual(['a@1000', 'b@2000', 'c@2000'])
    expect(scheduler.nextAt()).toBe(2001)
    expect(scheduler.runDue(2000)).toBe(0)
    scheduler.runDue(2001)
    expect(ran.at(-1)).toBe('later@2001')
    expect(scheduler.nextAt()).toBeUndefined()
  })

  it('runs, in the same step, a job that a due job schedules when it is due too', () => {
    const { scheduler, ran } = setup()
    scheduler.on('chain', (job) => scheduler.add(job.at + 500, 'note', 'next'))
    scheduler.add(1000, 'chain', 'first')
    scheduler.runDue(1500)
    expect(ran).toEqual(['next@1500'])
    scheduler.add(1000, 'chain', 'again')
    scheduler.runDue(1499)
    expect(ran).toEqual(['next@1500'])
    expect(scheduler.size).toBe(1)
  })

  it('reports a job that fails, drops it, and runs the others', () => {
    const { scheduler, ran, errors } = setup()
    scheduler.on('boom', () => {
      throw new Error('broken')
    })
    scheduler.add(1, 'boom', 'x')
    scheduler.add(2, 'note', 'y')
    scheduler.add(3, 'unknown', 'z')
    scheduler.runDue(10)
    expect(ran).toEqual(['y@2'])
    expect(errors).toEqual([
      'Scheduled boom (x) failed: broken',
      "Scheduled unknown (z) failed: no handler for jobs of kind 'unknown'",
    ])
    expect(scheduler.size).toBe(0)
  })

  it('drops the jobs of a ref', () => {
    const { scheduler, ran } = setup()
    scheduler.add(1, 'note', 'acct/one')
    scheduler.add(2, 'note', 'acct/two')
    scheduler.dropWhere((ref) => ref === 'acct/one')
    scheduler.runDue(10)
    expect(ran).toEqual(['acct/two@2'])
  })

  it('records every change, so that another process applying them has the same schedule', () => {
    const { state, scheduler } = setup()
    const other = setup()
    scheduler.add(5, 'note', 'a')
    scheduler.add(3, 'note', 'b')
    other.state.apply([state.take()])
    expect(other.scheduler.nextAt()).toBe(3)
    scheduler.runDue(3)
    other.state.apply([state.take()])
    expect(other.scheduler.nextAt()).toBe(5)
    other.scheduler.runDue(10)
    expect(other.ran).toEqual(['a@5'])
  })
})
