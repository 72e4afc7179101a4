import { API, http, type Page, type Paging } from '@/http'
import type { components } from './schema'
import { translate } from '@/i18n'
/** gates/: registered batches, their state machine, releases and the table they belong to. */
export type BatchState = components['schemas']['BatchStateEnum']

export type Transition = components['schemas']['Transition']

export type Release = components['schemas']['Release']

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

export type Attempt = components['schemas']['Attempt']

export type Batch = components['schemas']['Batch']

export type BatchDetail = components['schemas']['BatchDetail']

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
    /** A disabled check stays bound; batches and "Run all" skip it. */
    enabled: boolean
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

type BatchTag = 'success' | 'danger' | 'warning' | 'info' | 'primary'
const BATCH_TAGS: Record<BatchState, BatchTag> = {
  pending_validation: 'info',
  validating: 'primary',
  passed: 'success',
  failed: 'danger',
  unknown: 'warning',
  published: 'success',
  quarantined: 'danger',
  awaiting_approval: 'warning',
}
/** Each state's tag colour; its label read in the current language when shown. */
export const BATCH_STATE = Object.fromEntries(
  Object.entries<BatchTag>(BATCH_TAGS).map(([state, tag]) => [
    state,
    {
      tag,
      get label() {
        return translate(`common.batchState.${state}`)
      },
    },
  ]),
) as Record<BatchState, { readonly label: string; readonly tag: BatchTag }>
export const IN_PROGRESS: BatchState[] = ['pending_validation', 'validating', 'passed', 'failed', 'unknown']
export const partitionText = (p: Record<string, unknown>) =>
  Object.entries(p)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ') || translate('common.wholeTable')
