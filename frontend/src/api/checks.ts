import { API, http, request, type Page, type Paging } from '@/http'
import type { Check, CheckVersion, HistoryPoint, Params, UpgradePlan } from './types'

export interface CheckFilters {
  search?: string
  template?: string
  datasource?: number | ''
  /** The newest result's status, comma-separated (`fail,error`), or `never`. */
  last_status?: string
  /** Only these checks, comma-separated ids (a picker naming the ones it holds). */
  ids?: string
  tag?: string
  /** A username. */
  owner?: string
  /** 'true' for enabled checks only, 'false' for disabled ones. */
  enabled?: string
}

export interface CheckInput {
  name: string
  template: string
  params: Params
  /** '' (the template's) or one of the six quality dimensions. */
  dimension?: string
  /** What changed: kept on the version this save writes. */
  message?: string
  tags?: string[]
  enabled?: boolean
  owner?: string
}

export type BulkAction = 'enable' | 'disable' | 'add_tag' | 'remove_tag' | 'set_owner' | 'delete' | 'run'

export interface BulkOutcome {
  id: number
  name: string
  ok: boolean
  /** What was done ("Disabled.") or why it was refused. */
  detail: string
}

export interface BulkAnswer {
  action: BulkAction
  done: number
  refused: number
  results: BulkOutcome[]
}

/** One page of checks by name, filtered by the server. */
export const listChecks = (filters: CheckFilters & Paging = {}) => http.get<Page<Check>>(`${API}/checks/`, { ...filters })
export const getCheck = (id: number) => http.get<Check>(`${API}/checks/${id}/`)
export const createCheck = (body: CheckInput) => http.post<Check>(`${API}/checks/`, body)
/** The whole check as the form shows it; the server writes a new version when anything changed. */
export const updateCheck = (id: number, body: CheckInput) => http.put<Check>(`${API}/checks/${id}/`, body)
export const deleteCheck = (id: number) => http.delete(`${API}/checks/${id}/`)
export const listVersions = (id: number) => http.get<CheckVersion[]>(`${API}/checks/${id}/versions/`)
/** Statistic and comparison values over business time, for the trend chart. */
export const checkHistory = (id: number) => http.get<HistoryPoint[]>(`${API}/checks/${id}/history/`)
/** "Pass when actual − expected ≤ 0" for a rule being written: the server's words, before any run. */
/** The rule in words; a dynamic range or anomaly detection (`comparison_type`) words its range (`by_range`). */
export const previewFormula = (
  rule: { check_type?: string; operator?: string; threshold?: number; comparison_type?: string },
  signal?: AbortSignal,
) => http.get<{ formula: string; by_range: boolean }>(`${API}/formula/`, { ...rule }, signal)
/** What differs between the template version a check computes with and the template's current one. */
export const upgradePlan = (id: number) => http.get<UpgradePlan>(`${API}/checks/${id}/upgrade/`)
/** A new check version on the template's current version (400 naming a param that no longer fits). */
export const upgradeCheck = (id: number) => http.post<Check>(`${API}/checks/${id}/upgrade/`)

// Rules as code: a selection of checks as one check.yaml, and an import reviewed before it writes.

/** The check.yaml text of these checks (only checks the user may see; a 400 names any other id). */
export const exportChecks = (ids: number[]) => request<string>('GET', `${API}/checks/export/`, { params: { ids: ids.join(',') } })

export type ImportOutcome = 'added' | 'changed' | 'unchanged' | 'refused'

export interface ImportChange {
  field: string
  line: number | null
  /** null when the user may replace the check but not read its current settings. */
  before: unknown
  after: unknown
}

export interface ImportProblem {
  field: string
  line: number | null
  message: string
}

export interface PlannedCheck {
  index: number
  line: number | null
  name: string | null
  template: string | null
  outcome: ImportOutcome
  check: number | null
  current_version: number | null
  changes: ImportChange[]
  errors: ImportProblem[]
}

export interface ImportPlan {
  dry_run: true
  /** Passed back on apply: the server refuses (409) when the import would now do something else. */
  plan: string
  applicable: boolean
  summary: Record<ImportOutcome, number>
  checks: PlannedCheck[]
}

/** What importing `yaml` would do to each check; nothing is written. */
export const dryRunImport = (yaml: string) => http.post<ImportPlan>(`${API}/checks/import/`, { yaml, dry_run: true })
/** The import, all or nothing, exactly as the dry run `plan` said; `message` goes on every new version. */
export const applyImport = (yaml: string, plan: string, message: string) =>
  http.post<Check[]>(`${API}/checks/import/`, { yaml, plan, message })
/** "<name> (copy)", owned by the caller, at its first version. */
export const cloneCheck = (id: number) => http.post<Check>(`${API}/checks/${id}/clone/`)
/** Tags, the enabled switch and the owner: not versioned, nothing else changes. */
export const patchCheck = (id: number, body: Partial<Pick<CheckInput, 'tags' | 'enabled' | 'owner'>>) =>
  http.patch<Check>(`${API}/checks/${id}/`, body)
/** One action on a selection, check by check with the caller's rights; the answer says per check. */
export const bulkChecks = (body: { action: BulkAction; checks: number[]; tag?: string; owner?: string }) =>
  http.post<BulkAnswer>(`${API}/checks/bulk/`, body)
