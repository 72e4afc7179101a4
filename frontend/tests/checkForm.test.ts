import { describe, expect, it } from 'vitest'
import type { FormRule } from '@/api/types'
import { type CatalogAnswer, catalogProblem, dependentsOf, fieldsFetching, paramsFrom, placeErrors, reportingBeforeFetch, rulesWithValues } from '@/lib/checkForm'
import { diffVersions } from '@/lib/versionDiff'

const RULES: FormRule[] = [
  { type: 'select', field: 'src_datasource_id', title: 'Source datasource', options: [{ label: 'warehouse', value: 1 }] },
  { type: 'select', field: 'src_table', title: 'Source table', link: ['src_datasource_id'] },
  { type: 'input', field: 'src_filter', title: 'Source filter' },
  { type: 'select', field: 'src_field', title: 'Source column', link: ['src_table', 'src_datasource_id'] },
  { type: 'inputNumber', field: 'threshold', title: 'Threshold', value: 0 },
]

describe('the check form', () => {
  it('clears table and column when the datasource changes, the column when the table does', () => {
    expect(dependentsOf(RULES)).toEqual({ src_datasource_id: ['src_table', 'src_field'], src_table: ['src_field'] })
  })

  it('fills a copy of the served rules with the check’s values', () => {
    const filled = rulesWithValues(RULES, { src_table: 'dq.orders', threshold: 3 })
    expect(filled.find((r) => r.field === 'src_table')?.value).toBe('dq.orders')
    expect(filled.find((r) => r.field === 'threshold')?.value).toBe(3)
    expect(RULES[4].value).toBe(0) // the served rules stay as served
  })

  it('sends only the template’s fields, without empty optional ones', () => {
    expect(paramsFrom(RULES, { src_datasource_id: 1, src_table: 'dq.orders', src_filter: '', threshold: 0, stray: 1 })).toEqual({
      src_datasource_id: 1,
      src_table: 'dq.orders',
      threshold: 0,
    })
  })

  it('puts a 400’s messages under the field they name', () => {
    const placed = placeErrors(
      {
        name: ['A check named "x" already exists.'],
        'params.threshold': ['Threshold must be a number.'],
        'params.mapping_columns.0.src_field': ['Unknown column.'],
        'params.stray': ['Unknown field for template null_check.'],
        params: ['Params must be a JSON object.'],
      },
      RULES.map((r) => r.field),
    )
    expect(placed.name).toEqual(['A check named "x" already exists.'])
    expect(placed.fields).toEqual({ threshold: ['Threshold must be a number.'] })
    expect(placed.general).toEqual([
      'mapping_columns: Unknown column.',
      'stray: Unknown field for template null_check.',
      'params: Params must be a JSON object.',
    ])
  })
})

describe('a diff between two versions', () => {
  const base = { number: 1, name: 'emails', template_key: 'null_check', template_version: 1, content_hash: 'a', created_by: 'ann', created_at: '', message: '' }
  it('lists changed fields in the form’s words and order', () => {
    const rows = diffVersions(
      { ...base, params: { src_datasource_id: 1, threshold: 0, src_table: 'a.b' } },
      { ...base, number: 2, name: 'emails present', params: { src_datasource_id: 1, threshold: 5, src_table: 'a.b' } },
      { titles: { threshold: 'Threshold', src_datasource_id: 'Source datasource' }, options: { src_datasource_id: { 1: 'warehouse' } }, order: RULES.map((r) => r.field) },
    )
    expect(rows.filter((r) => r.changed).map((r) => [r.title, r.before, r.after])).toEqual([
      ['Name', 'emails', 'emails present'],
      ['Threshold', '0', '5'],
    ])
    expect(rows.find((r) => r.field === 'src_datasource_id')?.after).toBe('warehouse')
  })
})

describe('a catalog list that could not be loaded', () => {
  const served = [
    { type: 'select', field: 'src_datasource_id' },
    {
      type: 'select',
      field: 'src_table',
      effect: { fetch: { action: '/api/v1/form-options/tables/', query: { datasource: '{{$form.src_datasource_id}}' } } },
    },
    {
      type: 'select',
      field: 'target_table',
      effect: { fetch: { action: '/api/v1/form-options/tables/', query: { datasource: '{{$form.target_datasource_id}}' } } },
    },
  ]

  it('reports the server’s reason for the very select whose list failed', () => {
    const answers: CatalogAnswer[] = []
    const config: Record<string, unknown> = {
      action: '/api/v1/form-options/tables/',
      query: { datasource: 3 },
      onError: () => {},
    }
    reportingBeforeFetch((a) => answers.push(a))(config)
    ;(config.onError as (e: unknown, body: unknown) => void)(new Error('fail 502'), {
      message: 'Cannot connect to PostgreSQL at db:5432: password authentication failed for user "dq"',
    })

    expect(answers).toHaveLength(1)
    const fields = fieldsFetching(served as never, { src_datasource_id: 3, target_datasource_id: 4 }, answers[0])
    expect(fields).toEqual(['src_table'])
    expect(catalogProblem(answers[0].action, answers[0].message ?? '')).toBe(
      'The tables could not be listed: Cannot connect to PostgreSQL at db:5432: password authentication failed for user "dq"',
    )
  })

  it('reports a success as no problem, so a shown reason can go', () => {
    const answers: CatalogAnswer[] = []
    const config: Record<string, unknown> = { action: '/api/v1/form-options/tables/', query: { datasource: 3 }, onSuccess: () => {} }
    reportingBeforeFetch((a) => answers.push(a))(config)
    ;(config.onSuccess as (body: unknown) => void)({ results: [] })
    expect(answers[0].message).toBeNull()
  })
})
