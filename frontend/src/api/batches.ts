import { API, http, type Page, type Paging } from '@/http'

/** gates/: registered batches, their state machine, releases and the table they belong to. */
export type BatchState =
  | 'pending_validation'
  | 'validating'
  | 'passed'
  | 'failed'
  | 'unknown'
  | 'published'
  | 'quarantined'
  | 'awaiting_approval'

export interface Transition {
  from_state: BatchState
  to_state: BatchState
  reason: string
  by: string
  at: string
}

export interface Release {
  id: number
  released_by: string | null
  reason: string
  expires_at: string
  created_at: string
  ended_at: string | null
  end_reason: string
  /** Who ended it before its expiry (by re-validating the batch). */
  ended_by: string | null
}

/** A check the caller may not see shows only `hidden: true`, its status, strategy and verdict sentence. */
export interface EvidenceResult {
  hidden: boolean
  id: number | null
  check: number | null
  check_name: string
  check_version: number | null
  check_version_number: number | null
  status: string
  statistic_name: string
  statistics_value: number | null
  comparison_value: number | null
  comparison_source: Record<string, unknown>
  failure_strategy: string
  /** The server's sentence ("3 is below the expected range [8.16, 13.56] from 7 normal runs → fail"). */
  verdict: string
  message: string
  error_row_count: number | null
  rows_scanned: number | null
}

export interface Attempt {
  number: number
  run: number
  run_status: string
  trigger: string
  rule_set_hash: string
  rules_changed: boolean
  filters: { datasource: string; table: string; filter: string | null; partition?: Record<string, unknown>; scan_mode: string }[]
  check_versions: { id: number; check: number; name: string; number: number; hash: string }[]
  /** How many of the run's checks the caller may not see. */
  hidden_checks: number
  results: EvidenceResult[]
  /** Bound checks not run: their requester may not read what they compare with (`check: null` when hidden). */
  skipped_checks: { check: number | null; name: string; failure_strategy: string }[]
  requested_by: string | null
  created_at: string
}

export interface Batch {
  id: number
  datasource: number
  datasource_name: string
  table: string
  partition: Record<string, string | number>
  biz_date: string
  data_version: string
  producer: { instance_id?: string; attempt?: number }
  schedule_type: 'normal' | 'backfill' | 'rerun'
  state: BatchState
  may_consume: boolean
  reason: string
  warnings: string[]
  notes: string[]
  policy_state: BatchState | ''
  attempt: number
  revalidated_with_changed_rules: boolean
  /** What the page says above the evidence, from the server ("re-validated with changed rules"). */
  notice: string
  created_by: string | null
  created_at: string
}

export interface BatchDetail extends Batch {
  /** The caller may release and re-validate it: an owner of its datasource or an admin. */
  may_change: boolean
  transitions: Transition[]
  attempts: Attempt[]
  releases: Release[]
}

export interface GatedTable {
  datasource: number
  datasource_name: string
  table: string
  fail_mode: 'fail_closed' | 'fail_open'
  fail_mode_source: string
  /** The caller answers for the datasource (an owner or an administrator): switches its monitors, releases batches. */
  may_change: boolean
  checks: {
    id: number
    name: string
    template: string
    failure_strategy: string
    last_result: { id: number; run: number; status: string; verdict: string; biz_date: string; created_at: string } | null
  }[]
}

/** `search`: a batch's number (`12`, `#12`), part of its table's or datasource's name, or its data version. */
export const listBatches = (filters: { datasource?: number; table?: string; state?: string; search?: string } & Paging = {}) =>
  http.get<Page<Batch>>(`${API}/batches/`, { ...filters })
export const getBatch = (id: number, signal?: AbortSignal) => http.get<BatchDetail>(`${API}/batches/${id}/`, undefined, signal)
export const releaseBatch = (id: number, body: { reason: string; expires_at: string }) =>
  http.post<BatchDetail>(`${API}/batches/${id}/release/`, body)
export const revalidateBatch = (id: number) => http.post<BatchDetail>(`${API}/batches/${id}/revalidate/`, {})
export const getGatedTable = (datasource: number, table: string) =>
  http.get<GatedTable>(`${API}/gated-table/`, { datasource, table })
/** A check run for one business date, a backfill when `backfill` (kept out of baselines). */
export const runForDate = (checks: number[], bizDate: string, backfill: boolean) =>
  http.post<{ id: number }>(`${API}/runs/`, { checks, biz_date: bizDate, trigger: backfill ? 'backfill' : 'manual' })

export const BATCH_STATE: Record<BatchState, { label: string; tag: 'success' | 'danger' | 'warning' | 'info' | 'primary' }> = {
  pending_validation: { label: 'Pending validation', tag: 'info' },
  validating: { label: 'Validating', tag: 'primary' },
  passed: { label: 'Passed', tag: 'success' },
  failed: { label: 'Failed', tag: 'danger' },
  unknown: { label: 'Unknown', tag: 'warning' },
  published: { label: 'Published', tag: 'success' },
  quarantined: { label: 'Quarantined', tag: 'danger' },
  awaiting_approval: { label: 'Awaiting approval', tag: 'warning' },
}
export const IN_PROGRESS: BatchState[] = ['pending_validation', 'validating', 'passed', 'failed', 'unknown']
export const partitionText = (p: Record<string, unknown>) =>
  Object.entries(p)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ') || 'whole table'
