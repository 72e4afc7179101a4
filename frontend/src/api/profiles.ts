import { API, http, type Page } from '@/http'

/** profiling/: a table's profile (per column figures, from one pass on its engine) and what changed since the last. */
export type ProfileStatus = 'queued' | 'running' | 'done' | 'error'

export interface ColumnProfile {
  name: string
  type: string
  kind: 'number' | 'time' | 'string' | 'boolean' | 'other'
  rows: number
  nulls: number
  null_share: number
  distinct: number | null
  distinct_exact: boolean
  min?: number | string | null
  max?: number | string | null
  mean?: number | null
  stddev?: number | null
  sum?: number | null
  quantiles?: Record<string, number | string | null> | null
  quantiles_exact?: boolean
  histogram?: { edges: number[]; counts: number[] } | null
  length?: { min: number; max: number; mean: number } | null
  empty?: number | null
  looks?: { numeric: number; date: number; email: number } | null
  top_values?: { value: unknown; count: number }[] | null
  error?: string
}

export interface ProfileSample {
  rows: number
  method: 'full' | 'sample'
  fraction: number | null
  row_guard: number
}

export interface Profile {
  id: number
  url: string
  datasource: number
  datasource_name: string
  table: string
  filter: string
  engine: string
  engine_used: string | null
  status: ProfileStatus
  message: string
  requested_by: string | null
  created_at: string
  started_at: string | null
  finished_at: string | null
  row_count: number | null
  sample: ProfileSample | null
  columns: number | null
}

export interface Move {
  column: string
  figure: string
  before: unknown
  after: unknown
  /** after − before for numbers, else null (times). */
  change: number | null
}

export interface ProfileChanges {
  previous: { id: number; finished_at: string; row_count: number | null } | null
  row_count: { before: number; after: number; change: number; relative: number | null } | null
  columns_added: { name: string; type: string }[]
  columns_removed: { name: string; type: string }[]
  columns_retyped: { name: string; before: string; after: string }[]
  moves: Move[]
  thresholds: { null_share_points: number; relative: number }
}

export interface ProfileDetail extends Profile {
  document: {
    version: number
    source: { datasource: unknown; table: string; filter: string | null }
    engine: string
    engine_reason: string
    profiled_at: string
    row_count: number
    sample: ProfileSample
    columns: ColumnProfile[]
  } | null
  changes: ProfileChanges | null
}

/** Profiles of the whole table (`filter=` empty: a batch's profiles are not the table's), newest first. */
export const listProfiles = (datasource: number, table: string, query: { status?: ProfileStatus; page_size?: number } = {}) =>
  http.get<Page<Profile>>(`${API}/profiles/?filter=`, { datasource, table, page_size: 1, ...query })
export const getProfile = (id: number) => http.get<ProfileDetail>(`${API}/profiles/${id}/`)
export const requestProfile = (datasource: number, table: string) =>
  http.post<Profile>(`${API}/profiles/`, { datasource, table })
