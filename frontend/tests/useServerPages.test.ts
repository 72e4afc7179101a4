import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises, mount } from '@vue/test-utils'
import { defineComponent, h, nextTick, ref } from 'vue'
import { ApiError, type Page, type Paging } from '@/http'
import { useServerPages } from '@/composables/useServerPages'
import { useLiveRuns } from '@/composables/useLiveRuns'

const page = (items: number[], count: number): Page<number> => ({ count, next: null, previous: null, results: items })

describe('useServerPages', () => {
  it('asks the server for one page at a time and holds only that page', async () => {
    const asked: Array<Required<Paging>> = []
    const load = vi.fn(async (paging: Required<Paging>) => {
      asked.push(paging)
      return page(paging.page === 1 ? [1, 2] : [3], 3)
    })
    const list = useServerPages(load, 2)
    await flushPromises()
    expect(list.rows.value).toEqual([1, 2])
    expect(list.total.value).toBe(3)
    list.page.value = 2
    await flushPromises()
    expect(asked).toEqual([
      { page: 1, page_size: 2 },
      { page: 2, page_size: 2 },
    ])
    expect(list.rows.value).toEqual([3])
  })

  it('starts again from page 1 when a filter changes, with one request', async () => {
    const filter = ref('fail')
    const asked: string[] = []
    const list = useServerPages(async (paging) => {
      asked.push(`${filter.value}@${paging.page}`)
      return page([paging.page], 60)
    }, 20)
    await flushPromises()
    list.page.value = 3
    await flushPromises()
    filter.value = 'pass'
    list.restart()
    await flushPromises()
    expect(asked).toEqual(['fail@1', 'fail@3', 'pass@1'])
    expect(list.page.value).toBe(1)
  })

  it('goes back to page 1 when the list got shorter than the page shown (the server answers 404)', async () => {
    const list = useServerPages(async (paging) => {
      if (paging.page > 1) throw new ApiError(404, 'Invalid page.')
      return page([1], 1)
    }, 20)
    await flushPromises()
    list.page.value = 4
    await flushPromises()
    expect(list.page.value).toBe(1)
    expect(list.error.value).toBe('')
    expect(list.rows.value).toEqual([1])
  })

  it('shows any other failure as the page’s error', async () => {
    const list = useServerPages(async () => {
      throw new ApiError(400, 'Some fields are not valid: status.')
    })
    await flushPromises()
    expect(list.error.value).toBe('Some fields are not valid: status.')
  })
})

describe('useLiveRuns', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
  })

  it('asks only for the active run, not for a list, and hears when it ends', async () => {
    vi.useFakeTimers()
    const urls: string[] = []
    const states = ['running', 'running', 'passed']
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        urls.push(url)
        const status = states.shift() ?? 'passed'
        return new Response(JSON.stringify({ id: 7, status }), { headers: { 'content-type': 'application/json' } })
      }),
    )
    const finished: number[] = []
    const ids = ref([7])
    const Host = defineComponent({
      setup() {
        useLiveRuns(ids, (run) => finished.push(run.id), 1000)
        return () => h('div')
      },
    })
    const wrapper = mount(Host)
    await nextTick()
    for (let tick = 0; tick < 5; tick++) {
      await vi.advanceTimersByTimeAsync(1000)
      await flushPromises()
    }
    expect(urls).toEqual(['/api/v1/runs/7/', '/api/v1/runs/7/', '/api/v1/runs/7/'])
    expect(finished).toEqual([7])
    wrapper.unmount()
  })
})
