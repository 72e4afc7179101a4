import { API, http, type Page, type Paging } from '@/http'
import type { Check, CheckVersion, HistoryPoint, Params, UpgradePlan } from './types'

export interface CheckFilters {
  search?: string
  template?: string
  datasource?: number | ''
  /** The newest result's status, comma-separated (`fail,error`), or `never`. */
  last_status?: string
}

export interface CheckInput {
  name: string
  template: string
  params: Params
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
