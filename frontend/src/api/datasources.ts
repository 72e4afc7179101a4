import { API, fetchAllPages, http, type Page, type Paging } from '@/http'
import type { ColumnInfo, ConnectionTest, Datasource, DatasourceInput, TableInfo } from './types'

/** Every datasource the caller may use (a short, admin-kept list). */
export const listDatasources = () => fetchAllPages<Datasource>(`${API}/datasources/`)
/** One page of the datasources the caller may use, by name: `search` a part of it, `ids` exactly those. */
export const searchDatasources = (query: { search?: string; ids?: string } & Paging = {}) =>
  http.get<Page<Datasource>>(`${API}/datasources/`, { ...query })
export const createDatasource = (body: DatasourceInput) => http.post<Datasource>(`${API}/datasources/`, body)
/** PATCH: a `password` left out keeps the stored one. */
export const updateDatasource = (id: number, body: Partial<DatasourceInput>) =>
  http.patch<Datasource>(`${API}/datasources/${id}/`, body)
export const listTables = (id: number) => http.get<TableInfo[]>(`${API}/datasources/${id}/tables/`)
export const listColumns = (id: number, table: string) =>
  http.get<ColumnInfo[]>(`${API}/datasources/${id}/columns/`, { table })
/** The saved datasource as stored (anyone who may use it). */
export const testConnection = (id: number) => http.post<ConnectionTest>(`${API}/datasources/${id}/test/`)
/**
 * Administrators, before saving: a new configuration (`id` undefined), or an edit of datasource
 * `id` (its stored password unless `password` is given). Invalid fields answer 400 like saving would.
 */
export const testConfiguration = (body: Partial<DatasourceInput>, id?: number) =>
  http.post<ConnectionTest>(id === undefined ? `${API}/datasources/test/` : `${API}/datasources/${id}/test/`, body)
