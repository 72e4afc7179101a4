import { describe, expect, it } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import type { Page } from '@/http'
import { useRemoteOptions, type RemoteQuery } from '@/composables/useRemoteOptions'

interface Item {
  id: number
  name: string
}

// A list of 45 checks the "server" searches by name and answers by id, 20 a page.
const ALL: Item[] = Array.from({ length: 45 }, (_, i) => ({ id: i + 1, name: `check ${String(i + 1).padStart(2, '0')}` }))
function server(asked: RemoteQuery[] = []) {
  return async (query: RemoteQuery): Promise<Page<Item>> => {
    asked.push(query)
    let rows = ALL
    if (query.search) rows = rows.filter((r) => r.name.includes(query.search as string))
    if (query.ids) rows = rows.filter((r) => query.ids!.split(',').map(Number).includes(r.id))
    const start = (query.page - 1) * query.page_size
    return { count: rows.length, next: null, previous: null, results: rows.slice(start, start + query.page_size) }
  }
}

describe('useRemoteOptions', () => {
  it('shows the first page, then appends the next ones until the list is whole', async () => {
    const remote = useRemoteOptions(server(), (i) => i.name)
    await remote.search('')
    expect(remote.options.value.map((o) => o.id)).toEqual(ALL.slice(0, 20).map((o) => o.id))
    expect(remote.hasMore.value).toBe(true)
    await remote.more()
    await remote.more()
    expect(remote.options.value).toHaveLength(45)
    expect(remote.hasMore.value).toBe(false)
  })

  it('keeps the answer to the newest search when an older one arrives late', async () => {
    let release: (() => void) | undefined
    const slow = server()
    const remote = useRemoteOptions<Item>(async (q) => {
      if (q.search === 'check 1') await new Promise<void>((resolve) => (release = resolve))
      return slow(q)
    }, (i) => i.name)
    const older = remote.search('check 1')
    await remote.search('check 44')
    release!()
    await older
    expect(remote.options.value.map((o) => o.name)).toEqual(['check 44'])
  })

  it('names chosen items on no page loaded with one request by id; an unseen id stays #id', async () => {
    const asked: RemoteQuery[] = []
    const remote = useRemoteOptions(server(asked), (i) => i.name)
    await remote.nameChosen([44, 45, 999])
    await flushPromises()
    expect(asked).toEqual([{ ids: '44,45,999', page: 1, page_size: 3 }])
    expect([remote.name(44), remote.name(45), remote.name(999)]).toEqual(['check 44', 'check 45', '#999'])
    await remote.nameChosen([44, 45])
    expect(asked).toHaveLength(1) // known names are not asked again
  })

  it('asks for at most 500 ids at once', async () => {
    const asked: RemoteQuery[] = []
    const remote = useRemoteOptions(server(asked), (i) => i.name)
    await remote.nameChosen(Array.from({ length: 1200 }, (_, i) => i + 1000))
    expect(asked.map((q) => q.ids!.split(',').length)).toEqual([500, 500, 200])
  })
})
