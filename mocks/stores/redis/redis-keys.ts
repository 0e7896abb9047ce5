/**
 * The Redis keys of the shared store. Each account's keys carry the account id as a hash tag (`{usr_...}`), so
 * that they live in one slot of a Redis Cluster and one script may read and write them together; what is global
 * carries the tag `{global}`. Keys that hold state are named after the store's epoch, which a reset moves on:
 * the new epoch's keys are written first, and the epoch switched in one step.
 */
export interface PartitionKeys {
  /** Hash: `v` (version), `g` (newest global version seen), `m`/`md` (a global step's mark and its deadline). */
  state: string
  /** Hash: the account's records, field `<table>:<key>`, value JSON. */
  records: string
  /** List: the change sets of the latest versions, `<version> <JSON>`. */
  feed: string
  /** Hash: requests counted per second (field: the epoch second), and each window's total (`t<seconds>`). */
  windows: string
  /** List: the seconds a window of this length holds, oldest first. */
  windowList(seconds: number): string
}

export interface GlobalKeys {
  /** Hash: `v` (version), `e` (epoch), `init` ('1' once the store holds a state). */
  state: string
  /** String: the token of the process taking a global step. */
  lock: string
  /** Hash: a global step's changes to several accounts, committed and not yet applied everywhere. */
  intent: string
  /** List: the change sets of the latest global versions, `<version> <JSON>`. */
  feed: string
  /** Channel: told when the lock is let go. */
  released: string
  /** Hash: global records (the clock, meta, scenarios, schedule, calls, webhooks), field `<table>:<key>`. */
  records(epoch: number): string
  /** Set: the ids of the accounts. */
  accounts(epoch: number): string
  /** Hash: SHA-256 of a key value -> its account id. */
  keys(epoch: number): string
  /** List: the newest journal entries (soft), each `<process id> <JSON>`. */
  journal(epoch: number): string
  /** String: how many journal entries were ever appended (the last one's number). */
  journalCount(epoch: number): string
}

export function globalKeys(prefix: string): GlobalKeys {
  const at = `${prefix}{global}:`
  return {
    state: `${at}state`,
    lock: `${at}lock`,
    intent: `${at}intent`,
    feed: `${at}feed`,
    released: `${at}released`,
    records: (epoch) => `${at}${epoch}:records`,
    accounts: (epoch) => `${at}${epoch}:accounts`,
    keys: (epoch) => `${at}${epoch}:keys`,
    journal: (epoch) => `${at}${epoch}:journal`,
    journalCount: (epoch) => `${at}${epoch}:journal:n`,
  }
}

export function partitionKeys(prefix: string, account: string, epoch: number): PartitionKeys {
  const at = `${prefix}{${account}}:${epoch}:`
  return {
    state: `${at}state`,
    records: `${at}records`,
    feed: `${at}feed`,
    windows: `${at}windows`,
    windowList: (seconds) => `${at}window:${seconds}`,
  }
}

/** `<table>:<key>`, the field of a record in a records hash, and back. */
export const recordField = (table: string, key: string) => `${table}:${key}`
export function splitField(field: string): [table: string, key: string] {
  const colon = field.indexOf(':')
  return [field.slice(0, colon), field.slice(colon + 1)]
}
