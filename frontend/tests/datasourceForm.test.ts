import { describe, expect, it } from 'vitest'
import type { Datasource } from '@/api/types'
import { ApiError } from '@/http'
import { bodyOf, draftOf, placeErrors } from '@/lib/datasourceForm'

const stored: Datasource = {
  id: 3,
  name: 'warehouse',
  type: 'postgresql',
  description: '',
  host: 'db',
  port: 5432,
  database: 'dw',
  username: 'reader',
  has_password: true,
  path: '',
  format: '',
  options: { sslmode: 'require' },
  allowed_groups: ['analysts'],
  owners: [],
  owner_groups: [],
  permissions: ['change', 'delete', 'test'],
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-01T00:00:00Z',
}

describe('the datasource form', () => {
  it('edits without the password unless one is typed, so the stored one is kept and tested', () => {
    const draft = draftOf(stored)
    expect(bodyOf(draft, true).body).not.toHaveProperty('password')
    expect(bodyOf({ ...draft, password: 'new-secret' }, true).body.password).toBe('new-secret')
    expect(bodyOf({ ...draft, clearPassword: true }, true).body.password).toBe('')
  })

  it('sends only the fields of the chosen kind', () => {
    const draft = { ...draftOf(), name: 'lake', type: 'file' as const, host: 'left-over', path: '/data/lake', format: 'parquet' }
    const { body } = bodyOf(draft, false)
    expect(body).toMatchObject({ host: '', port: null, database: '', username: '', path: '/data/lake', format: 'parquet' })
    expect(body).not.toHaveProperty('password')
  })

  it('reads options as a JSON object, and says so under Options when they are not', () => {
    expect(bodyOf(draftOf(stored), true).body.options).toEqual({ sslmode: 'require' })
    expect(bodyOf({ ...draftOf(stored), optionsText: '["a"]' }, true).problems.options).toContain('JSON object')
    expect(bodyOf({ ...draftOf(stored), optionsText: '{sslmode' }, true).problems.options).toContain('JSON object')
  })

  it('puts the API’s messages under their fields and the rest above the form', () => {
    const error = new ApiError(400, 'Some fields are not valid: host, port.', {
      host: ['A host name or IP address is required for a database server.'],
      port: ['A port must be between 1 and 65535.'],
      non_field: ['Something else.'],
    })
    expect(placeErrors(error)).toEqual({
      fields: {
        host: 'A host name or IP address is required for a database server.',
        port: 'A port must be between 1 and 65535.',
      },
      general: ['non_field: Something else.'],
    })
  })
})
