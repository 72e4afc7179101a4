/**
 * The one HTTP client of the browser app. Every API module goes through it, so that:
 * - the Django session cookie travels, and unsafe methods carry the CSRF token (cookie `csrftoken`);
 * - every failure becomes an `ApiError` holding the API's one error shape
 *   `{"message": "...", "fields": {"name": ["..."], "params": {"threshold": ["..."]}}}`
 *   (dq_platform/api_errors.py), whatever the server or the network did;
 * - a lost session sends the user to the sign-in page and back.
 */
import { currentLocale } from '../i18n'

export type FieldErrorTree = string[] | FieldErrorTree[] | { [field: string]: FieldErrorTree }

export interface ApiErrorBody {
  message: string
  fields: Record<string, FieldErrorTree>
}

export class ApiError extends Error {
  readonly status: number
  readonly fields: Record<string, FieldErrorTree>

  constructor(status: number, message: string, fields: Record<string, FieldErrorTree> = {}) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.fields = fields
  }

  /** No answer at all: the server is down or the network is gone. */
  get isNetworkError(): boolean {
    return this.status === 0
  }

  /** Field messages flattened to dotted paths: `params.threshold`, `params.mapping_columns.0.src_field`. */
  flatFields(): Record<string, string[]> {
    return flattenFieldErrors(this.fields)
  }

  /** The messages of one field path, e.g. `fieldMessages('params.threshold')`; [] when none. */
  fieldMessages(path: string): string[] {
    return this.flatFields()[path] ?? []
  }
}

export function flattenFieldErrors(tree: FieldErrorTree | undefined, prefix = ''): Record<string, string[]> {
  const flat: Record<string, string[]> = {}
  const visit = (node: FieldErrorTree | undefined, path: string) => {
    if (node == null) return
    if (Array.isArray(node)) {
      if (node.every((item) => typeof item === 'string')) {
        if (node.length) flat[path] = [...(flat[path] ?? []), ...(node as string[])]
      } else {
        node.forEach((item, index) => visit(item, path ? `${path}.${index}` : String(index)))
      }
      return
    }
    if (typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) visit(value, path ? `${path}.${key}` : key)
      return
    }
    flat[path] = [...(flat[path] ?? []), String(node)]
  }
  visit(tree, prefix)
  return flat
}

/** The value of Django's CSRF cookie, or '' before Django has set one. */
export function csrfToken(cookies: string = typeof document === 'undefined' ? '' : document.cookie): string {
  for (const part of cookies.split(';')) {
    const [name, ...rest] = part.trim().split('=')
    if (name === 'csrftoken') return decodeURIComponent(rest.join('='))
  }
  return ''
}

export type QueryValue = string | number | boolean | null | undefined | Array<string | number>
export type Query = Record<string, QueryValue>

export interface RequestOptions {
  params?: Query
  body?: unknown
  signal?: AbortSignal
  headers?: Record<string, string>
}

/** `/api/v1/checks/` + {search: 'x', template: ''} → `/api/v1/checks/?search=x` (empty values dropped). */
export function withQuery(url: string, params?: Query): string {
  if (!params) return url
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (value === null || value === undefined || value === '') continue
    for (const item of Array.isArray(value) ? value : [value]) query.append(key, String(item))
  }
  const text = query.toString()
  if (!text) return url
  return url + (url.includes('?') ? '&' : '?') + text
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
const NOT_SIGNED_IN = /credentials were not provided|not authenticated/i

type UnauthenticatedHandler = () => void

/** Where a lost session goes: the sign-in page, then back to the page the user was on. */
let onUnauthenticated: UnauthenticatedHandler = () => {
  const here = window.location.pathname + window.location.search + window.location.hash
  window.location.assign(`/login/?next=${encodeURIComponent(here)}`)
}

export function setUnauthenticatedHandler(handler: UnauthenticatedHandler): void {
  onUnauthenticated = handler
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text()
  if (!text) return undefined
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}

/** Any failed response as the API's error shape, including HTML error pages and bare DRF shapes. */
export function errorFromResponse(status: number, statusText: string, body: unknown): ApiError {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const shaped = body as Partial<ApiErrorBody> & { detail?: unknown }
    if (typeof shaped.message === 'string') {
      return new ApiError(status, shaped.message, (shaped.fields as ApiErrorBody['fields']) ?? {})
    }
    if (typeof shaped.detail === 'string') return new ApiError(status, shaped.detail)
    const fields = body as Record<string, FieldErrorTree>
    const names = Object.keys(flattenFieldErrors(fields))
    return new ApiError(status, `Some fields are not valid: ${names.join(', ')}.`, fields)
  }
  if (status >= 500) {
    return new ApiError(
      status,
      `The server failed (${status}${statusText ? ' ' + statusText : ''}). Try again; if it keeps happening, tell an administrator.`,
    )
  }
  if (status === 404) return new ApiError(status, 'Not found: it may have been deleted, or you may not see it.')
  return new ApiError(status, `The request failed (${status}${statusText ? ' ' + statusText : ''}).`)
}

export async function request<T = unknown>(method: string, url: string, options: RequestOptions = {}): Promise<T> {
  const verb = method.toUpperCase()
  // The server answers (messages, validation errors, verdict sentences) in the app's language.
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Accept-Language': currentLocale.value === 'zh-CN' ? 'zh-Hans' : 'en',
    ...options.headers,
  }
  let body: BodyInit | undefined
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json'
    body = JSON.stringify(options.body)
  }
  if (!SAFE_METHODS.has(verb)) headers['X-CSRFToken'] = csrfToken()

  let response: Response
  try {
    response = await fetch(withQuery(url, options.params), {
      method: verb,
      headers,
      body,
      credentials: 'same-origin',
      signal: options.signal,
    })
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error
    throw new ApiError(0, 'Cannot reach the server. Check your connection, then try again.')
  }

  const payload = await readBody(response)
  if (response.ok) return payload as T
  const error = errorFromResponse(response.status, response.statusText, payload)
  if (response.status === 401 || (response.status === 403 && NOT_SIGNED_IN.test(error.message))) {
    onUnauthenticated()
  }
  throw error
}

export const http = {
  get: <T>(url: string, params?: Query, signal?: AbortSignal) => request<T>('GET', url, { params, signal }),
  post: <T>(url: string, body?: unknown) => request<T>('POST', url, { body }),
  put: <T>(url: string, body?: unknown) => request<T>('PUT', url, { body }),
  patch: <T>(url: string, body?: unknown) => request<T>('PATCH', url, { body }),
  delete: <T = void>(url: string) => request<T>('DELETE', url),
}

/** One page of a list endpoint (dq_platform/pagination.py): `?page=&page_size=`, 50 by default, at most 500.
 * The one page type of the SPA: the schema's Paginated…List components are this with their row type. */
export interface Page<T> {
  count: number
  next: string | null
  previous: string | null
  results: T[]
}

export interface Paging {
  page?: number
  page_size?: number
}

export const MAX_PAGE_SIZE = 500

/**
 * Every item of a short list (datasources, rule templates, comparison types: catalogs an admin
 * keeps, which fill the filters and selects), following `next` page by page. Long lists (checks,
 * runs, results) are paged on screen instead (composables/useServerPages).
 */
export async function fetchAllPages<T>(url: string, params: Query = {}, maxPages = 20): Promise<T[]> {
  const items: T[] = []
  let next: string | null = withQuery(url, { ...params, page_size: MAX_PAGE_SIZE })
  for (let fetched = 0; next && fetched < maxPages; fetched++) {
    const page: Page<T> = await request<Page<T>>('GET', next)
    items.push(...page.results)
    next = page.next
  }
  return items
}

/** A message for anything a promise rejected with: ApiError's own words, else a generic line. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof Error && error.message) return error.message
  return 'Something went wrong.'
}

export const API = '/api/v1'
