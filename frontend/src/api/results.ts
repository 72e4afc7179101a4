import { API, http, type Page, type Paging } from '@/http'
import type { ErrorRowsPage, LatestResult, Result, ResultFeedbackState, ResultsSummary } from './types'

export interface ResultFilters {
  /** One status or several, comma-separated: `fail,error`. */
  status?: string
  check?: number | ''
  run?: number | ''
  datasource?: number | ''
  since?: string
  until?: string
  /** Only the newest result of each check in range (the dashboard's open failures). */
  latest?: boolean | ''
  /** Only results that block a workflow. */
  blocks?: boolean | ''
}

/** One page of results, newest first, filtered by the server. */
export const listResults = (filters: ResultFilters & Paging = {}) =>
  http.get<Page<Result>>(`${API}/results/`, { ...filters })
export const getResult = (id: number) => http.get<Result>(`${API}/results/${id}/`)
export const resultsSummary = (hours = 24) => http.get<ResultsSummary>(`${API}/results/summary/`, { hours })
/** The newest result of each of these checks (one page of the checks list). */
export const latestResults = (checks: number[]) =>
  http.get<Page<LatestResult>>(`${API}/results/latest/`, { check: checks, page_size: Math.max(1, checks.length) })
/** `checkName`: a row_level_check's rows failing that one check (`_dq_failed_checks`). */
export const errorRows = (id: number, page: number, pageSize: number, checkName?: string) =>
  http.get<ErrorRowsPage>(`${API}/results/${id}/error-rows/`, { page, page_size: pageSize, check_name: checkName })
export const errorRowsCsvUrl = (id: number) => `${API}/results/${id}/error-rows.csv`
/** Anomaly detection's feedback on a result, and the check's false-alarm rate. */
export const resultFeedback = (id: number) => http.get<ResultFeedbackState>(`${API}/results/${id}/feedback/`)
/** `expected`: a false alarm (resolves the incident, joins the training); `incident`: a real one. */
export const giveFeedback = (id: number, verdict: 'expected' | 'incident') =>
  http.post<ResultFeedbackState>(`${API}/results/${id}/feedback/`, { verdict })
