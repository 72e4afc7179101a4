import { API, http } from '@/http'
import type { ColumnInfo, Datasource, TableInfo } from './types'

export const listDatasources = () => http.get<Datasource[]>(`${API}/datasources/`)
export const listTables = (id: number) => http.get<TableInfo[]>(`${API}/datasources/${id}/tables/`)
export const listColumns = (id: number, table: string) =>
  http.get<ColumnInfo[]>(`${API}/datasources/${id}/columns/`, { table })
export const testConnection = (id: number) => http.post<{ ok: boolean; message: string }>(`${API}/datasources/${id}/test/`)
