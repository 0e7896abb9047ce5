import type { Scope } from '../permissions.ts'

export type KeyType = 'secret' | 'publishable'

export interface KeyRestrictions {
  allowed_ips: string[]
  allowed_origins: string[]
  expires_at: string | null
}

/** The key record of docs/decisions/003-api-keys.md, as the control plane shows it. */
export interface ApiKey {
  id: string
  object: 'api_key'
  account_id: string
  type: KeyType
  name: string
  permissions: Scope[]
  restrictions: KeyRestrictions
  redacted_value: string
  status: 'active' | 'revoked'
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  rotation_due_at: string
}

/** A stored key: the record and the SHA-256 of its value; the value itself is never kept. */
export interface StoredKey {
  record: ApiKey
  hash: string
}

export interface KeyInput {
  type: KeyType
  name: string
  permissions?: string[]
  restrictions?: Partial<KeyRestrictions>
}
