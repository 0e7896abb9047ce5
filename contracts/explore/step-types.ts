import type { BodyEdit } from './body-edits.ts'
import type { ControlView } from './control-views.ts'

/**
 * What a step of an exploration is, and the keys a sequence holds: plain data, described here apart from how
 * fast-check generates it (steps.ts), so that the reports and the types users see need no fast-check.
 */

/**
 * The account's secret key written wrong, as a key is mistyped, truncated by a copy or matched too loosely:
 * in capitals, with a character more, with one less, with the publishable prefix. Each names no key (a key is
 * compared whole).
 */
export const MANGLED_ROLES = [
  'secret-in-capitals',
  'secret-one-more',
  'secret-one-less',
  'secret-other-prefix',
] as const

/** The secret key `key` written as `role` says (`MANGLED_ROLES`). */
export function mangled(key: string, role: (typeof MANGLED_ROLES)[number]): string {
  switch (role) {
    case 'secret-in-capitals':
      return key.toUpperCase()
    case 'secret-one-more':
      return `${key}0`
    case 'secret-one-less':
      return key.slice(0, -1)
    case 'secret-other-prefix':
      return key.replace(/^sk-/, 'pk-')
  }
}

/**
 * The keys a sequence holds, by role: those of its account (full secret, publishable, the `read` group, none
 * at all, revoked, expiring, bound to an origin, a spare one that a step may revoke, and one lacking each scope
 * of the contract: `lacking-<scope>`) and of another account (secret, revoked); `unknown` is a well-formed key
 * nobody issued, `none` sends no Authorization header; the `MANGLED_ROLES` are the secret key written wrong.
 */
export const KEY_ROLES = [
  'secret',
  'publishable',
  'read',
  'no-scope',
  'revoked',
  'expiring',
  'origin',
  'spare',
  'other-secret',
  'other-revoked',
  'unknown',
  'none',
  ...MANGLED_ROLES,
] as const
export type KeyRole = (typeof KEY_ROLES)[number] | `lacking-${string}` | `only-${string}` | 'minted'

/** The role of the key that holds every scope but `scope`. */
export const lacking = (scope: string): KeyRole => `lacking-${scope}`

/** The role of the secret key that holds `scope` alone (a read-only server key, a widget's backend). */
export const only = (scope: string): KeyRole => `only-${scope}`

/** Roles whose keys belong to the other account. */
export const OTHER_ACCOUNT_ROLES: ReadonlySet<KeyRole> = new Set(['other-secret', 'other-revoked'])

/** Where a parameter's value comes from; resolved against what the sequence has seen, at run time. */
export type ParamChoice =
  | { from: 'absent' }
  | { from: 'value'; value: unknown }
  /** A value that breaks the parameter's schema (one rule), from `parameterBreakages`. */
  | { from: 'broken'; value: string; what: string }
  /** A value sent earlier for a parameter of the same name (an Idempotency-Key used again). */
  | { from: 'seen'; pick: number; fallback: string }
  /** The ID of an object: alive in the account, deleted, of the other account. */
  | { from: 'object'; pool: 'live' | 'deleted' | 'other'; prefix: string; pick: number }
  /** A well-formed ID that names nothing. */
  | { from: 'unknown'; prefix: string }
  /**
   * An instant: now on the target's clock, an object's `created_at`, or the sequence's calendar edge
   * (`CALENDAR_EDGES`), plus `offset` seconds.
   */
  | { from: 'instant'; base: 'now' | 'object' | 'calendar'; pick: number; offset: number }
  /**
   * An integer an answer showed in the field the parameter bounds (`min_duration_seconds` on `duration_seconds`:
   * the parameter's name ends with the field's), plus `offset`; `fallback` when none was seen.
   */
  | { from: 'number'; pick: number; offset: number; fallback: unknown }

/** Query parameters by operation (`listCallLogs`, `getCallAnalytics`), each drawn like a request's. */
export type Watch = Record<string, Record<string, ParamChoice>>

/** The body of a request. */
export type BodyChoice =
  /** `spelling`: how the JSON is written and its media type (body-spelling.ts; 0 the plain way). */
  | { form: 'valid'; value: unknown; spelling: number }
  /** A valid body broken in one place (`bodyBreakages` of the value, the `pick`th). */
  | { form: 'broken'; value: unknown; pick: number; spelling: number }
  /** A body that is not a JSON object, or not sent as JSON. */
  | { form: 'raw'; text: string; contentType: string }
  /**
   * One field of the object the path names, set from what it was before (body-edits.ts): `edit` says how, `pick`
   * which field and value, `word` a new value; `value` (a valid body) is sent when the object has no such past.
   */
  | { form: 'edit'; edit: BodyEdit; pick: number; word: string; value: unknown; spelling: number }

/** A request to one operation of the contract. */
export interface ApiStep {
  kind: 'api'
  operationId: string
  /** HEAD for a GET, or a method the path does not document (405); the operation's own by default. */
  method?: string
  key: KeyRole
  params: Record<string, ParamChoice>
  body?: BodyChoice
  origin: 'none' | 'allowed' | 'other'
  /**
   * After a write the model accepted, read the object and its list back: the list page by page (`pageSize`
   * objects a page, following the cursors of the answers; 0: one page of the default size), then from its
   * oldest object back up with `ending_before` when `backwards`.
   */
  readBack: false | { pageSize: number; backwards: boolean }
  /** How many times the request is sent (operations that create: several objects, for lists to page through). */
  repeat: number
  /**
   * How the request is written (request-spelling.ts): 0 the plain way, else one of the forms clients send
   * (the scheme's letter case, an Accept list, percent-encoded IDs, an unknown query parameter, ...).
   */
  form: number
  /**
   * Appended to the operation's path (`x`, `/explore`): a path the contract does not define, which the model
   * answers as the contract's routing convention says. Undefined: the operation's own path.
   */
  stray?: string
}

export type Step =
  | ApiStep
  /**
   * The same request as an earlier one that carried an Idempotency-Key, with the same or another key; its JSON
   * body written another way when `spelling` is not 0 (the same value: body-spelling.ts); with `changed`, its
   * Idempotency-Key with another body (a string field of it changed), which the key must not pass for the first.
   */
  | { kind: 'again'; pick: number; key: KeyRole | 'same'; spelling: number; changed?: boolean }
  /**
   * Requests sent at once, all in flight together (a client's parallel calls, two tabs, a retry while the first
   * try is still running): each is carried out whole, so the target's answers must be the model's for one order
   * of them. At most one of them creates an object, unless they are the same request with one Idempotency-Key
   * (objects created in one second are ordered by their IDs, which each side draws for itself).
   */
  | { kind: 'burst'; steps: ApiStep[] }
  /**
   * One object changed several times in a row, as a user edits a form: the update `step`, then the same request
   * with bodies made from what the object was before (`edits`: body-edits.ts), the last one read back.
   */
  | { kind: 'edits'; step: ApiStep; edits: { edit: BodyEdit; pick: number; word: string }[] }
  /**
   * An object made, removed, and made again with the same body (a user who deletes and re-adds an agent, an
   * invitation withdrawn and sent again): `create` (without an Idempotency-Key), then a DELETE of what it made,
   * then `create` again, read back; with `join`, an invited member joins before the removal.
   */
  | { kind: 'recreate'; create: ApiStep; join: boolean }
  /**
   * A create with an Idempotency-Key, sent again with the same body, then with another (the key stands for the
   * first): `create` carries the secret key, a valid body and a fresh key.
   */
  | { kind: 'keyed'; create: ApiStep }
  /** `POST /_mock/clock/advance` on the target; the model's clock follows the target's. */
  | { kind: 'advance'; seconds: number }
  /** A simulated call placed through the control plane (when it offers `/calls`), then let run to its end. */
  | {
      kind: 'call'
      agent: number
      outcome: string
      channel: 'phone' | 'web'
      direction: 'inbound' | 'outbound'
      ringSeconds: number
      durationSeconds: number
      /**
       * The talk set from the agent's own cap instead (`max_call_duration_seconds` as the agent's answers last
       * showed it) plus this many seconds: a call ending just under, at or just past its cap.
       */
      capEdge?: number
      /**
       * Query parameters of the call list and of the account's views (by operation) for a second reading of each
       * at the stages of the call (none present: no second reading): a filter, a cursor or a grouping meeting
       * a call under way.
       */
      watch?: Watch
      /**
       * Placed and left under way: the steps after it meet the call ringing or talking (a delete of its agent, a
       * list filtered by its status), and the clock's moves take it on.
       */
      leave?: boolean
    }
  /**
   * An invited team member (the `member`th of the newest live ones) accepts the invitation through the control plane
   * (when it offers `joinTeamMember`), then is read back: the steps after it meet an active member.
   */
  | {
      kind: 'join'
      member: number
      /** A member who joined already (or the owner) asked to join again: both control planes must refuse. */
      again?: boolean
    }
  /**
   * The dashboard shows the account (control-views.ts): its keys, or its plan and quotas, read on both control
   * planes and compared.
   */
  | { kind: 'look'; view: ControlView }
  /** A key revoked through the control plane. */
  | { kind: 'revoke'; key: KeyRole }
  /**
   * A key made on the dashboard (`createKey`) with the permissions and restrictions a user picks, on both sides,
   * the answers compared but for the key's value; then `uses`, requests sent with it (the `minted` key).
   */
  /**
   * A scenario of the dashboard (`POST /_mock/scenarios`) on the account for one operation: an error status it
   * documents for `times` requests; then `uses` (requests to that operation with the keys the sequence
   * holds, its own or none), then the scenario removed (gone already once its `times` are used).
   */
  | {
      kind: 'scenario'
      operation: string
      status: number
      /** Undefined: until it is removed. */
      times?: number
      uses: ApiStep[]
      /** For every account (the dashboard's outage of an operation), not the sequence's account alone. */
      everyone?: boolean
    }
  | {
      kind: 'mint'
      type: 'secret' | 'publishable'
      /** Scopes and groups; undefined: the type's default. */
      permissions?: string[]
      /**
       * Addresses and ranges (`MINT_ADDRESSES`), only where the target sees this client at 127.0.0.1; an empty list
       * (anywhere, as a form sends an address list left empty) always.
       */
      ips?: string[]
      /** Seconds from now to its `expires_at`; undefined: never expires. */
      expiresIn?: number
      /** Its `expires_at` written at offset +01:00 (the same instant). */
      atOffset?: boolean
      /**
       * A fraction of a second added to its `expires_at` (as a form that adds a duration to the time it reads
       * sends): recorded in whole seconds, the fraction dropped.
       */
      fraction?: number
      uses: ApiStep[]
    }
  /**
   * The account's webhook signing secret created (or rotated, when it has one), read, or revoked through the
   * control plane, on both sides: the answers compared but for the secret's value.
   */
  | { kind: 'secret'; action: WebhookSecretAction }
  /**
   * The account's plan or quotas changed through the control plane (an upgrade, a downgrade, custom limits);
   * `limits` undefined: the plan alone (custom quotas stay as they are).
   */
  /**
   * `limits` left out: the plan alone changes (custom quotas stay); `pinned`: the account's quotas as they are now
   * set explicitly on its own plan (equal to the plan's when none were set: custom from then on).
   */
  | { kind: 'plan'; plan: SetupSpec['plan']; limits: SetupSpec['limits'] | undefined | 'pinned' }
  /**
   * The next page of the list being read (other steps in between: a client paging while objects come and go),
   * or the first page of a list (the `list`th of the contract's) when none is being read or it has ended.
   */
  | {
      kind: 'page'
      list: number
      pageSize: number
      backwards: boolean
      key?: KeyRole
      /** The list's filters (by operation: its query parameters but the pagination's), kept on every page. */
      filters?: Watch
    }

/**
 * Instants where calendars and clocks have their edges, which a sequence's instants may be drawn near: a leap day,
 * the turn of a year, the days clocks change in the United States and in Europe, the epoch and the second before
 * it, the first second a signed 32-bit count of seconds cannot hold, the first and last instants RFC 3339 writes
 * with four-digit years.
 */
export const CALENDAR_EDGES = [
  '2024-02-29T00:00:00Z',
  '2025-12-31T23:00:00Z',
  '2026-03-08T10:00:00Z',
  '2026-03-29T01:00:00Z',
  '2026-10-25T01:00:00Z',
  '2026-11-01T06:00:00Z',
  '1970-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '2038-01-19T03:14:08Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
] as const

/**
 * The addresses and ranges a minted key may be bound to: this client's (127.0.0.1, as a bare address, a /32 and in
 * its /8), IPv6's loopback, other networks, everywhere, and forms that are no address.
 */
export const MINT_ADDRESSES = [
  '127.0.0.1',
  '127.0.0.1/32',
  '127.0.0.0/8',
  '::1',
  '10.0.0.1',
  '10.0.0.0/8',
  '192.168.1.0/24',
  '0.0.0.0/0',
  '::/0',
  'localhost',
  '127.0.0.256',
  '127.0.0.1/33',
] as const

/** What a `secret` step does to the account's webhook signing secret, and with which method. */
export const WEBHOOK_SECRET_ACTIONS = { create: 'POST', show: 'GET', revoke: 'DELETE' } as const
export type WebhookSecretAction = keyof typeof WEBHOOK_SECRET_ACTIONS

/** How a sequence's accounts are set up: the same on the target and on the model. */
export interface SetupSpec {
  plan: 'free' | 'pro' | 'enterprise'
  /** Custom quotas, or the plan's. */
  limits: { hourly: number; burst: number } | null
  /** Seconds until the `expiring` key's `expires_at`. */
  expiresIn: number
  /** Which of `CALENDAR_EDGES` the sequence's calendar instants are near. */
  edge: number
  /** How many objects the account starts with, for each operation that creates (`creatingOperations`). */
  objects: number[]
  /** Simulated calls the account starts with (when the target's control plane places calls). */
  calls: {
    outcome: string
    ringSeconds: number
    durationSeconds: number
    channel: 'phone' | 'web'
    direction: 'inbound' | 'outbound'
  }[]
}
