import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { parseContractFlags } from '../contracts/cli/flags.ts'
import { runContractCommand } from '../contracts/cli.ts'
import {
  finishTarget,
  mergeTargets,
  parseScopedKey,
  TargetError,
  targetFromEnv,
  targetFromFile,
} from '../contracts/target/resolve-target.ts'

const KEY = `sk-svc-${'k'.repeat(40)}`

describe('voice-api-kit contract: target configuration', () => {
  it('reads flags, with scoped keys expanded from their groups', () => {
    const flags = parseContractFlags([
      '--base-url',
      'https://api.example.com/v1',
      '--scoped-key',
      `read=${KEY}`,
      '--destructive',
      '--area',
      'authentication,rate-limits',
      '--reporter',
      'junit',
      '--output',
      'out.xml',
    ])
    if (flags === 'help') throw new Error('unexpected help')
    expect(flags.target.baseUrl).toBe('https://api.example.com/v1')
    expect(flags.target.scopedKeys?.[0]?.scopes).toEqual([
      'agents:read',
      'call_logs:read',
      'analytics:read',
      'integrations:read',
    ])
    expect(flags.target.destructive).toBe(true)
    expect(flags.target.areas).toEqual(['authentication', 'rate-limits'])
    expect(flags.reporters).toEqual(['junit'])
    expect(flags.output).toBe('out.xml')
  })

  it('reads VOICE_API_* environment variables', () => {
    const target = targetFromEnv({
      VOICE_API_BASE_URL: 'http://127.0.0.1:4010/v1',
      VOICE_API_KEY: KEY,
      VOICE_API_DESTRUCTIVE: '1',
      VOICE_API_SCOPED_KEYS: `agents:read=${KEY} none=${KEY}`,
      VOICE_API_PLAN: 'free',
    })
    expect(target).toMatchObject({ secretKey: KEY, destructive: true, plan: 'free' })
    expect(target.scopedKeys?.map((k) => k.scopes)).toEqual([['agents:read'], []])
  })

  it('lets flags win over the environment, and the environment over a config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'contract-suite-'))
    const file = join(dir, 'target.yaml')
    writeFileSync(file, 'baseUrl: https://file.example/v1\nplan: pro\nbudget: 50\n')
    const merged = mergeTargets(
      targetFromFile(file),
      { plan: 'free' },
      { baseUrl: 'https://flag.example/v1' },
    )
    expect(merged).toMatchObject({ baseUrl: 'https://flag.example/v1', plan: 'free', budget: 50 })
  })

  it('requires a secret key unless it provisions the mock', () => {
    expect(() => finishTarget({ baseUrl: 'http://127.0.0.1:4010/v1' })).toThrow(TargetError)
    expect(finishTarget({ provision: 'mock' }).baseUrl).toBe('http://127.0.0.1:4010/v1')
  })

  it('refuses a scoped key without its scopes', () => {
    expect(() => parseScopedKey(KEY)).toThrow(TargetError)
  })

  it('prints help with exit code 0 and answers a bad flag with exit code 2', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    expect(await runContractCommand(['--help'])).toBe(0)
    expect(log.mock.calls[0]?.[0]).toContain('Usage: voice-api-kit contract')
    vi.stubEnv('VOICE_API_KEY', '')
    vi.stubEnv('VOICE_API_PROVISION', '')
    expect(await runContractCommand(['--no-such-flag'])).toBe(2)
    expect(await runContractCommand(['--base-url', 'http://127.0.0.1:1/v1'])).toBe(2)
    expect(error.mock.calls.map((c) => String(c[0])).join('\n')).toContain('A secret key is required')
    log.mockRestore()
    error.mockRestore()
    vi.unstubAllEnvs()
  })
})
