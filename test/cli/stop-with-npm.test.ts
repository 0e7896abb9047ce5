import { describe, expect, it } from 'vitest'
import { stopWithNpm } from '../../cli/mock/stop-with-npm.ts'

const settle = () => new Promise((resolve) => setTimeout(resolve, 40))

describe('stopWithNpm', () => {
  it.each([
    ['started by npx, its parent gone', { npm_lifecycle_event: 'npx' }, [10, 1], 1],
    ['started by npm start, adopted by a subreaper', { npm_lifecycle_event: 'start' }, [10, 77], 1],
    ['started by npx, its parent still there', { npm_lifecycle_event: 'npx' }, [10, 10], 0],
    ['started without npm, its parent gone', {}, [10, 1], 0],
  ] as const)('%s: stops %i time(s)', async (_, env, parents, stops) => {
    let calls = 0
    let now = 0
    const ppid = () => parents[Math.min(now++, parents.length - 1)] as number
    const end = stopWithNpm(() => calls++, { env, ppid, intervalMs: 5 })
    await settle()
    end()
    expect(calls).toBe(stops)
  })

  it('looks no more once ended', async () => {
    let calls = 0
    let parent = 10
    const end = stopWithNpm(() => calls++, {
      env: { npm_lifecycle_event: 'npx' },
      ppid: () => parent,
      intervalMs: 5,
    })
    end()
    parent = 1
    await settle()
    expect(calls).toBe(0)
  })
})
