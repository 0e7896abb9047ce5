/** A key with known scopes (a restricted key). */
export interface ScopedKey {
  key: string
  /** The scopes the key holds (after expanding `read` / `write`). */
  scopes: string[]
}

export type Plan = 'free' | 'pro' | 'enterprise'

/**
 * What the suite runs against. Only `baseUrl` and `secretKey` are needed (or `provision: 'mock'`, which
 * creates everything through the mock's control plane); every other key unlocks more checks, and a check
 * that needs a key it lacks is skipped with the reason.
 */
export interface TargetConfig {
  /** Base URL including the version segment, e.g. `http://127.0.0.1:4010/v1`. */
  baseUrl: string
  /** A secret key (`sk-svc-...`) with full access to the account under test. */
  secretKey?: string
  /** A publishable key (`pk-svc-...`) of the same account. */
  publishableKey?: string
  /** A revoked key of the same account. */
  revokedKey?: string
  /** A key past its `expires_at` restriction. */
  expiredKey?: string
  /** A key whose `allowed_origins` restriction lists `origin` (and only that). */
  originKey?: { origin: string; key: string }
  /** Keys with restricted scopes, each with the scopes it holds. */
  scopedKeys?: ScopedKey[]
  /** The account's plan; read from `GET /user` when not given. */
  plan?: Plan
  /** `mock`: create accounts, keys, revocations and clock moves through the mock's control plane. */
  provision?: 'none' | 'mock'
  /** The mock's control plane (default: the base URL with `/v1` replaced by `/_mock`). */
  mockControlUrl?: string
  /** Bearer token of the mock's control plane, when it was started with `--admin-token`. */
  mockAdminToken?: string
  /** Allow writes (POST, PATCH, DELETE) and rate-limit checks; without it the run is read-only. */
  destructive?: boolean
  /** `true`: a stateless mock (e.g. `prism mock`); `auto` (default): detect it with one request. */
  stateless?: boolean | 'auto'
  /** Most requests the run may send (default: 80% of the hourly quota left, or unlimited on the mock). */
  budget?: number
  /** Longest wait in seconds to honour `Retry-After` (default 60). */
  maxWaitSeconds?: number
  /** Path of the contract (default: this package's `openapi/v1.yaml`). */
  contractPath?: string
  /**
   * Checks run at the same time in a provisioned run (default 16), each lane on an account of its own; a check
   * that moves the mock's clock always runs alone. 1 runs every check one after another. Without
   * provisioning checks run one after another, on the account under test.
   */
  concurrency?: number
  /** Only run checks of these areas (`responses`, `authentication`, ...). */
  areas?: string[]
  /** The fetch to use (library use: a custom transport); default the global fetch. */
  fetch?: typeof fetch
}

/** Hourly quota per plan (the spec's table); enterprise is custom, so its default is used. */
export const PLAN_HOURLY_QUOTA: Record<Plan, number> = { free: 100, pro: 1000, enterprise: 10_000 }
