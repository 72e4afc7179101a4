import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  ApiError,
  csrfToken,
  errorFromResponse,
  fetchAllPages,
  flattenFieldErrors,
  http,
  request,
  setUnauthenticatedHandler,
  withQuery,
} from '@/http'

interface Call {
  url: string
  init: RequestInit
}
let calls: Call[] = []

function answer(status: number, body: unknown, contentType = 'application/json') {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init })
      return new Response(status === 204 ? null : text, { status, headers: { 'content-type': contentType } })
    }),
  )
}

beforeEach(() => {
  calls = []
  document.cookie = 'csrftoken=tok%2Ben; path=/'
})
afterEach(() => {
  vi.unstubAllGlobals()
})

describe('requests', () => {
  it('GETs with the session cookie, JSON accepted, and a query without empty values', async () => {
    answer(200, [{ id: 1 }])
    const body = await http.get('/api/v1/checks/', { search: 'emails', template: '', datasource: undefined, page: 2 })
    expect(body).toEqual([{ id: 1 }])
    expect(calls[0].url).toBe('/api/v1/checks/?search=emails&page=2')
    expect(calls[0].init.credentials).toBe('same-origin')
    expect((calls[0].init.headers as Record<string, string>).Accept).toBe('application/json')
    expect((calls[0].init.headers as Record<string, string>)['X-CSRFToken']).toBeUndefined()
  })

  it('sends JSON and the CSRF token from the cookie on a POST, and reads the 202', async () => {
    answer(202, { id: 7, status: 'queued' })
    const run = await http.post<{ id: number; status: string }>('/api/v1/runs/', { checks: [3] })
    expect(run).toEqual({ id: 7, status: 'queued' })
    const headers = calls[0].init.headers as Record<string, string>
    expect(calls[0].init.method).toBe('POST')
    expect(headers['X-CSRFToken']).toBe('tok+en')
    expect(headers['Content-Type']).toBe('application/json')
    expect(calls[0].init.body).toBe('{"checks":[3]}')
  })

  it('answers undefined for 204 No Content', async () => {
    answer(204, '')
    await expect(http.delete('/api/v1/checks/3/')).resolves.toBeUndefined()
  })
})

describe('errors in the API’s one shape', () => {
  it('keeps the message and the fields of a 400, nested params included', async () => {
    answer(400, {
      message: 'Some fields are not valid: name, params.threshold.',
      fields: { name: ['A check named "x" already exists.'], params: { threshold: ['Threshold must be a number.'] } },
    })
    const error = await http.post('/api/v1/checks/', {}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    const apiError = error as ApiError
    expect(apiError.status).toBe(400)
    expect(apiError.message).toBe('Some fields are not valid: name, params.threshold.')
    expect(apiError.fieldMessages('params.threshold')).toEqual(['Threshold must be a number.'])
    expect(apiError.flatFields()).toEqual({
      name: ['A check named "x" already exists.'],
      'params.threshold': ['Threshold must be a number.'],
    })
    expect(apiError.fieldMessages('params.src_table')).toEqual([])
  })

  it('flattens lists of nested errors to indexed paths', () => {
    expect(
      flattenFieldErrors({ params: { mapping_columns: [{}, { src_field: ['Unknown column.'] }] }, checks: ['Check 9 does not exist.'] }),
    ).toEqual({ 'params.mapping_columns.1.src_field': ['Unknown column.'], checks: ['Check 9 does not exist.'] })
  })

  it('turns an HTML error page into a sentence', async () => {
    answer(500, '<html><body>Server Error (500)</body></html>', 'text/html')
    const error = (await http.get('/api/v1/runs/').catch((e: unknown) => e)) as ApiError
    expect(error.status).toBe(500)
    expect(error.message).toMatch(/^The server failed \(500/)
    expect(error.fields).toEqual({})
  })

  it('says when the server cannot be reached', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))))
    const error = (await http.get('/api/v1/runs/').catch((e: unknown) => e)) as ApiError
    expect(error.isNetworkError).toBe(true)
    expect(error.message).toMatch(/Cannot reach the server/)
  })

  it('lets an aborted request reject as an abort, not as an API error', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new DOMException('aborted', 'AbortError'))))
    const error = await request('GET', '/api/v1/runs/1/').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DOMException)
  })

  it('reads DRF shapes that escaped the error handler', () => {
    expect(errorFromResponse(404, 'Not Found', { detail: 'Not found.' }).message).toBe('Not found.')
    const bare = errorFromResponse(400, 'Bad Request', { table: ['This query parameter is required.'] })
    expect(bare.fieldMessages('table')).toEqual(['This query parameter is required.'])
    expect(bare.message).toBe('Some fields are not valid: table.')
  })

  it('sends a signed-out user to sign in, and still rejects', async () => {
    const signIn = vi.fn()
    setUnauthenticatedHandler(signIn)
    answer(403, { message: 'Authentication credentials were not provided.', fields: {} })
    await expect(http.get('/api/v1/checks/')).rejects.toBeInstanceOf(ApiError)
    expect(signIn).toHaveBeenCalledOnce()

    answer(403, { message: "Only the check's owner or an administrator may change or delete it.", fields: {} })
    await expect(http.delete('/api/v1/checks/1/')).rejects.toThrow(/owner/)
    expect(signIn).toHaveBeenCalledOnce() // a refusal is not a lost session
  })
})

describe('helpers', () => {
  it('reads the CSRF cookie among others', () => {
    expect(csrfToken('sessionid=abc; csrftoken=XYZ; theme=dark')).toBe('XYZ')
    expect(csrfToken('sessionid=abc')).toBe('')
  })

  it('appends repeated values and keeps an existing query', () => {
    expect(withQuery('/x/?a=1', { b: [1, 2], c: null })).toBe('/x/?a=1&b=1&b=2')
  })
})

describe('paged lists', () => {
  it('follows `next` to gather a short list, asking for the largest pages', async () => {
    const pages: Record<string, unknown> = {
      '/api/v1/datasources/?page_size=500': { count: 3, next: 'http://x/api/v1/datasources/?page=2&page_size=500', previous: null, results: [1, 2] },
      'http://x/api/v1/datasources/?page=2&page_size=500': { count: 3, next: null, previous: 'http://x/…', results: [3] },
    }
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init: RequestInit) => {
        calls.push({ url, init })
        return new Response(JSON.stringify(pages[url]), { status: 200, headers: { 'content-type': 'application/json' } })
      }),
    )
    await expect(fetchAllPages('/api/v1/datasources/')).resolves.toEqual([1, 2, 3])
    expect(calls.map((c) => c.url)).toEqual(Object.keys(pages))
  })
})
