import { describe, expect, it } from 'vitest'
import type { Capsule } from '../../mocks/engine/capsule/capsule.ts'
import { createCapsuleEncoder } from '../../mocks/engine/capsule/capsule-encoder.ts'

const head = {
  capsule: 1,
  created_at: '2026-03-12T12:10:45Z',
  mock: { version: '0.2.0', seed: 1 },
  clock: { now: '2026-03-12T13:10:45.120Z', offset_seconds: 3600 },
  webhook_secrets: 'omitted',
} as const

const capsuleOf = (tables: Capsule['state']['tables']): Capsule => ({
  ...head,
  state: { version: 2, tables },
})
const decoded = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes))

describe('the capsule encoder', () => {
  it('writes each capsule as the JSON of its value, whatever it reused from the capsules before', () => {
    const encoder = createCapsuleEncoder()
    const agent = { id: 'agt_1', name: 'Clínica – Recepción 受付' }
    const log = { id: 'cl_1', status: 'completed' }
    const steps: Capsule['state']['tables'][] = [
      { agents: [['usr_1/agt_1', agent]], call_logs: [['usr_1/cl_1', log]], clock: [['offset', 3600]] },
      // The same records again: reused.
      { agents: [['usr_1/agt_1', agent]], call_logs: [['usr_1/cl_1', log]], clock: [['offset', 3600]] },
      // A record replaced (copy-on-write), a primitive changed, a record added.
      {
        agents: [['usr_1/agt_1', { ...agent, name: 'Renamed' }]],
        call_logs: [
          ['usr_1/cl_1', log],
          ['usr_1/cl_2', { id: 'cl_2', status: 'queued' }],
        ],
        clock: [['offset', 7200]],
      },
      // The same object under another key, the same count of other records, a table gone.
      { agents: [['usr_2/agt_1', agent]], call_logs: [['usr_1/cl_2', log]] },
      { agents: [], call_logs: [['usr_1/cl_1', log]], journal: [] },
    ]
    for (const tables of steps) expect(decoded(encoder.encode(capsuleOf(tables)))).toEqual(capsuleOf(tables))
  })

  it('writes ASCII only, other characters escaped, so that the text decodes as fast as a copy', () => {
    const name = 'Clínica – Recepción 受付 😀'
    const bytes = createCapsuleEncoder().encode(
      capsuleOf({ agents: [['usr_1/agt_1', { name }]], clock: [['offset', 0]] }),
    )
    expect(bytes.every((byte) => byte < 0x80)).toBe(true)
    expect(decoded(bytes).state.tables.agents[0][1].name).toBe(name)
  })
})
