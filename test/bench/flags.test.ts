import { describe, expect, it } from 'vitest'
import { parseBenchFlags } from '../../scripts/bench/flags.ts'

describe('parseBenchFlags', () => {
  it.each([
    [[], { quick: false, durationSec: 5, warmupSec: 1, connections: 10, startupRuns: 3, json: undefined }],
    [['--quick'], { quick: true, durationSec: 2, warmupSec: 0.5, startupRuns: 1 }],
    [
      ['--json', 'out.json', '--connections', '50', '--duration', '3'],
      { json: 'out.json', connections: 50, durationSec: 3 },
    ],
  ])('reads %j', (argv, want) => {
    expect(parseBenchFlags(argv)).toMatchObject(want)
  })

  it('runs every phase by default and only the named ones with --only', () => {
    const all = parseBenchFlags([])
    const some = parseBenchFlags(['--only', 'load,list'])
    if (all === 'help' || some === 'help') throw new Error('unexpected help')
    expect([...all.phases]).toEqual(['load', 'startup', 'list', 'msw', 'contract', 'storage'])
    expect([...some.phases]).toEqual(['load', 'list'])
  })

  it.each([
    [['--only', 'nope'], /Unknown phase 'nope'/],
    [['--duration', '0'], /--duration must be a positive number/],
    [['--bogus'], /Unknown option/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseBenchFlags(argv)).toThrow(message)
  })

  it('compares only the phases whose ratios it compares, unless told which to run', () => {
    const compare = parseBenchFlags(['--quick', '--compare'])
    const only = parseBenchFlags(['--compare', '--only', 'load'])
    const save = parseBenchFlags(['--save'])
    if (compare === 'help' || only === 'help' || save === 'help') throw new Error('unexpected help')
    expect(compare).toMatchObject({ compare: true, save: false, quick: true })
    expect([...compare.phases]).toEqual(['load', 'msw'])
    expect([...only.phases]).toEqual(['load'])
    expect(save).toMatchObject({ compare: false, save: true })
    expect(save.phases.size).toBe(6)
  })

  it('answers help for -h', () => {
    expect(parseBenchFlags(['-h'])).toBe('help')
  })
})
