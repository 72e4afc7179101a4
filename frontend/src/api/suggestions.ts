import { API, http } from '@/http'

/** Checks suggested from a table's latest profile, each with the figures behind it and a backtest. */
export type Verdict = 'pass' | 'fail' | 'not_decidable'

export interface Suggestion {
  fingerprint: string
  column: string
  kind: string
  template: string
  name: string
  params: Record<string, unknown>
  why: string
  evidence: {
    statistic: unknown
    rows: number
    nulls: number | null
    distinct: number | null
    distinct_exact: boolean | null
    sample: { method: string; rows: number; table_rows: number | null; fraction: number | null }
    profiled_at: string
    engine: string
  }
  tolerance: unknown
  margin: unknown
  backtest: {
    this_profile: { verdict: Verdict; reason: string } | null
    earlier: { profiled_at: string; basis: string; rows: number; verdict: Verdict; reason: string }[]
    summary: Record<Verdict, number>
    holdout: { method: string; pairs: { suggested_from: string; judged_on: { verdict: Verdict } }[]; summary: Record<Verdict, number> } | null
  }
}

export interface Suggestions {
  datasource: number
  table: string
  profile: { id: number; profiled_at: string; engine: string; row_count: number; sample: unknown } | null
  earlier_profiles: number
  message: string
  hidden: { rejected: number; already_checks: number }
  suggestions: Suggestion[]
}

export const listSuggestions = (datasource: number, table: string) =>
  http.get<Suggestions>(`${API}/suggestions/`, { datasource, table })
export const acceptSuggestion = (datasource: number, table: string, fingerprint: string) =>
  http.post<{ id: number; name: string }>(`${API}/suggestions/accept/`, { datasource, table, fingerprint })
export const rejectSuggestion = (datasource: number, table: string, fingerprint: string, reason: string) =>
  http.post<unknown>(`${API}/suggestions/reject/`, { datasource, table, fingerprint, reason })
