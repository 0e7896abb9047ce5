/** The shapes of an account and its limits, shared by the account store and its control-plane side. */

export type Plan = 'free' | 'pro' | 'enterprise'

export interface Limits {
  hourly: number
  burst: number
}

/** An account, seen through `/v1/user` as the User object. */
export interface Account {
  id: string
  object: 'user'
  email: string
  name: string
  plan: Plan
  created_at: string
  /** Limits set for this account; null follows the plan's defaults. */
  custom_limits: Limits | null
}

export interface AccountInput {
  plan: Plan
  email?: string
  name?: string
  limits?: Limits | null
  id?: string
  /** When the account was created (the seed backdates its demo account); now by default. */
  created_at?: string
}
