import { API, http } from '@/http'
import type { ErrorRowsPage, LatestResult, Result, ResultsSummary } from './types'

export interface ResultFilters {
  status?: string
  check?: number | ''
  run?: number | ''
  datasource?: number | ''
  since?: string
  until?: string
}

export const listResults = (filters: ResultFilters = {}) => http.get<Result[]>(`${API}/results/`, { ...filters })
export const getResult = (id: number) => http.get<Result>(`${API}/results/${id}/`)
export const resultsSummary = (hours = 24) => http.get<ResultsSummary>(`${API}/results/summary/`, { hours })
export const latestResults = () => http.get<LatestResult[]>(`${API}/results/latest/`)
export const errorRows = (id: number, page: number, pageSize: number) =>
  http.get<ErrorRowsPage>(`${API}/results/${id}/error-rows/`, { page, page_size: pageSize })
export const errorRowsCsvUrl = (id: number) => `${API}/results/${id}/error-rows.csv`
