import { RecordMap } from '../record-map.ts'
import type { EngineState } from '../state/state.ts'

/** The state table of the accounts' webhook signing secrets, keyed by account id. */
export const SIGNING_SECRETS_TABLE = 'webhook_secrets'

/** A signing secret as the state keeps it: signing needs the value itself (never shown after its creation). */
export interface StoredSigningSecret {
  value: string
  created_at: string
}

/** Random bytes of a secret: 24 (192 bits), base64 after `whsec_`, as Standard Webhooks libraries expect. */
const SECRET_BYTES = 24

/** `whsec_` and the base64 of 24 bytes from the CSPRNG (Web Crypto). */
export function newSigningSecret(): string {
  const bytes = new Uint8Array(SECRET_BYTES)
  crypto.getRandomValues(bytes)
  return `whsec_${btoa(String.fromCharCode(...bytes))}`
}

/** The `webhook_secrets` table: one signing secret per account, created, rotated and revoked. */
export function createSigningSecrets(state: EngineState) {
  const secrets = new RecordMap<StoredSigningSecret>((key, value, before, soft) =>
    state.record(SIGNING_SECRETS_TABLE, key, value, before, soft),
  )
  state.register(SIGNING_SECRETS_TABLE, {
    apply: (key, value) => secrets.apply(key, value as StoredSigningSecret | null),
    entries: () => secrets.entries(),
    clear: () => secrets.clear(),
  })
  return {
    get: (accountId: string) => secrets.get(accountId),
    /** A new secret for the account, replacing its current one; returns it and whether one was replaced. */
    create(accountId: string, createdAt: string): { secret: StoredSigningSecret; rotated: boolean } {
      const rotated = secrets.get(accountId) !== undefined
      const secret = { value: newSigningSecret(), created_at: createdAt }
      secrets.put(accountId, secret)
      return { secret, rotated }
    },
    /** Revokes the account's secret; false when it had none. */
    remove: (accountId: string) => secrets.delete(accountId),
  }
}

export type SigningSecrets = ReturnType<typeof createSigningSecrets>
