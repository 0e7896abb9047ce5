import { describe, expect, it } from 'vitest'
import { CONTRACT_HELP, parseContractFlags } from '../../cli/contract/flags.ts'
import { IdMap } from '../../contracts/explore/id-map.ts'
import { ModelTime } from '../../contracts/explore/model-time.ts'
import { TargetError, targetFromEnv } from '../../contracts/target/resolve-target.ts'

describe('voice-api-kit contract: exploration flags', () => {
  it('reads --seed, --explore-time and --explore-sequences, and --area explore', () => {
    const flags = parseContractFlags([
      '--area',
      'explore',
      '--seed',
      '42',
      '--explore-time',
      '30',
      '--explore-sequences',
      '2000',
    ])
    if (flags === 'help') throw new Error('unexpected help')
    expect(flags.target).toMatchObject({
      areas: ['explore'],
      seed: 42,
      exploreSeconds: 30,
      exploreSequences: 2000,
    })
  })

  it.each([
    ['--seed', 'abc'],
    ['--explore-time', '1.5'],
    ['--explore-sequences', 'ten'],
  ])('refuses %s %s in one line', (flag, value) => {
    expect(() => parseContractFlags([flag, value])).toThrow(TargetError)
    expect(() => parseContractFlags([flag, value])).toThrow(`${flag} must be a whole number`)
  })

  it('reads VOICE_API_SEED, VOICE_API_EXPLORE_TIME and VOICE_API_EXPLORE_SEQUENCES', () => {
    expect(
      targetFromEnv({
        VOICE_API_SEED: '7',
        VOICE_API_EXPLORE_TIME: '60',
        VOICE_API_EXPLORE_SEQUENCES: '100',
      }),
    ).toMatchObject({ seed: 7, exploreSeconds: 60, exploreSequences: 100 })
  })

  it('documents them in --help', () => {
    for (const text of ['--seed <n>', '--explore-time <s>', '--explore-sequences <n>', 'webhooks, explore'])
      expect(CONTRACT_HELP).toContain(text)
  })
})

describe("the model's clock, driven by the target's", () => {
  it('runs a step in the second the target handled it, later steps a little later, never back', () => {
    const set: number[] = []
    const time = new ModelTime((ms) => set.push(ms))
    time.read('2026-03-04T09:15:27Z')
    time.step(time.current())
    time.step(time.current())
    time.saw(time.current() - 1)
    time.step(time.current() - 1)
    const second = Date.parse('2026-03-04T09:15:27Z')
    expect(set.map((ms) => Math.floor(ms / 1000) * 1000)).toEqual([second, second, second])
    expect(set[1]).toBeGreaterThan(set[0] as number)
    expect(set[2]).toBeGreaterThan(set[1] as number)
  })

  it("follows a clock move, and starts the second's count again when real time passed a second", () => {
    const set: number[] = []
    const time = new ModelTime((ms) => set.push(ms))
    time.read('2026-03-04T09:15:27Z')
    time.step(time.current())
    time.step(time.current())
    time.advanced(60)
    time.read('2026-03-04T09:16:27Z')
    time.step(time.current())
    time.saw(time.current() + 1)
    time.step(time.current())
    const [a, b, c, d] = set as [number, number, number, number]
    // The move keeps the order within the second; passing a second on its own starts the count again.
    expect(c - 60_000).toBeGreaterThan(b)
    expect(d - 61_000).toBeLessThan(c - 60_000)
    expect(d - 61_000).toBeLessThanOrEqual(a)
  })

  it('runs a step again in another second, never before the step before it', () => {
    const set: number[] = []
    const time = new ModelTime((ms) => set.push(ms))
    time.read('2026-03-04T09:15:27Z')
    time.step(time.current())
    time.step(time.current() + 1)
    time.again(time.current() - 5)
    expect(Math.floor((set.at(-1) as number) / 1000)).toBe(Math.floor((set[0] as number) / 1000))
  })
})

describe('the IDs learnt from the answers', () => {
  it('forgets what a comparison that is taken back learnt', () => {
    const ids = new IdMap()
    ids.set('agt_T1', 'agt_M1')
    const checkpoint = ids.checkpoint()
    expect(ids.match('agt_T2', 'agt_M2')).toBeUndefined()
    expect(ids.toModel('agt_T2')).toBe('agt_M2')
    ids.rollback(checkpoint)
    expect(ids.toModel('agt_T2')).toBeUndefined()
    expect(ids.toTarget('agt_M2')).toBeUndefined()
    expect(ids.toModel('agt_T1')).toBe('agt_M1')
    expect(ids.match('agt_T1', 'agt_M2')).toMatch(/another object/)
    expect(ids.mapText('https://r.example/agt_T1.mp3')).toBe('https://r.example/agt_M1.mp3')
  })
})
