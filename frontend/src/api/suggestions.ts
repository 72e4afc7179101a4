import { API, http } from '@/http'
import type { ProfileSample } from './profiles'

/** Checks suggested from a table's latest profile, each with the figures behind it and a backtest. */
export type Verdict = 'pass' | 'fail' | 'not_decidable'

/** A verdict from a profile's figures alone, and what it rests on (`basis`: every row or a sample). */
export interface Judgement {
  profiled_at: string
  basis: 'full' | 'sample'
  rows: number | null
  verdict: Verdict
  reason: string
}

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
    /** The check judged on the profile it was suggested from (always there). */
    this_profile: Judgement
    earlier: Judgement[]
    summary: Record<Verdict, number>
    holdout: {
      method: string
      pairs: { suggested_from: string; params: Record<string, unknown>; judged_on: Judgement }[]
      summary: Record<Verdict, number>
    }
  }
}

export interface Suggestions {
  datasource: number
  table: string
  profile: { id: number; profiled_at: string; engine: string; row_count: number; sample: ProfileSample } | null
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
