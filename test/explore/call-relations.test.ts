import { describe, expect, it } from 'vitest'
import { transcriptDifferences } from '../../contracts/explore/call-relations.ts'

const log = (starts: number[], more: Record<string, unknown> = {}) => ({
  id: 'call_a',
  object: 'call_log',
  duration_seconds: 30,
  transcript: starts.map((start_seconds, i) => ({
    role: i % 2 ? 'user' : 'agent',
    text: 'x',
    start_seconds,
  })),
  ...more,
})

describe("a call log's transcript, held to when it says things were said", () => {
  const rang = new Map([['call_a', 4]])

  it('passes utterances in order, within the call, from the moment it connected', () => {
    expect(transcriptDifferences(log([4, 6.5, 12, 31]), rang)).toEqual([])
    expect(transcriptDifferences(log([3.9, 8]), rang)).toEqual([]) // rounded to tenths
    expect(transcriptDifferences(log([]), rang)).toEqual([])
    expect(transcriptDifferences(log([0, 2]), new Map())).toEqual([]) // a call this run did not place
  })

  it('finds an utterance out of order', () => {
    const found = transcriptDifferences(log([4, 9, 7]), rang)
    expect(found.map((d) => d.at)).toEqual(['body.transcript[2].start_seconds'])
    expect(found[0]?.decidedBy).toContain('in order of `start_seconds`')
  })

  it('finds an utterance before the call connected (offsets counted from the connection, not from started_at)', () => {
    const found = transcriptDifferences(log([0, 2.5, 8]), rang)
    expect(found.map((d) => d.at)).toEqual(['body.transcript[0].start_seconds'])
    expect(found[0]?.model).toContain('at least 4')
  })

  it('finds an utterance after the call ended', () => {
    const found = transcriptDifferences(log([4, 40]), rang)
    expect(found.map((d) => d.at)).toEqual(['body.transcript[1].start_seconds'])
  })

  it('reads only call logs with a transcript', () => {
    expect(transcriptDifferences({ object: 'agent', transcript: [{ start_seconds: -1 }] }, rang)).toEqual([])
    expect(transcriptDifferences(log([0], { transcript: undefined }), rang)).toEqual([])
  })
})
