import { describe, expect, it } from 'vitest'
import { storeFlag } from '../cli/mock/store-spec.ts'

describe('--store', () => {
  it.each([
    ['memory', { kind: 'memory' }],
    ['file:state.json', { kind: 'file', path: 'state.json' }],
    ['redis://127.0.0.1:6379/0', { kind: 'redis', url: 'redis://127.0.0.1:6379/0' }],
    [
      'redis-cluster://127.0.0.1:7000,127.0.0.1:7001',
      {
        kind: 'redis-cluster',
        nodes: [
          { host: '127.0.0.1', port: 7000 },
          { host: '127.0.0.1', port: 7001 },
        ],
      },
    ],
    [
      'redis-cluster://redis-a.internal:7000/',
      { kind: 'redis-cluster', nodes: [{ host: 'redis-a.internal', port: 7000 }] },
    ],
    ['redis-cluster://[::1]:7000', { kind: 'redis-cluster', nodes: [{ host: '::1', port: 7000 }] }],
  ])('reads %s', (value, spec) => {
    expect(storeFlag(value, undefined)).toEqual(spec)
  })

  it.each([
    ['redis-cluster://', /needs at least one node/],
    ['redis-cluster://127.0.0.1', /'127\.0\.0\.1' is not host:port/],
    ['redis-cluster://127.0.0.1:70000', /is not host:port/],
    ['redis-cluster://127.0.0.1:7000,,127.0.0.1:7001', /'' is not host:port/],
    ['mongodb://127.0.0.1', /takes memory, file:<path>, redis:\/\/host:port\/db or redis-cluster:\/\//],
  ])('refuses %s with one line saying what to give', (value, message) => {
    expect(() => storeFlag(value, undefined)).toThrow(message)
  })
})
