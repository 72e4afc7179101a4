import { computed, reactive, ref, shallowRef } from 'vue'
import { errorMessage, MAX_PAGE_SIZE, type Page } from '@/http'

/** What a remote picker asks a list endpoint: `?search=` page by page, or `?ids=` for the chosen ones. */
export interface RemoteQuery {
  search?: string
  ids?: string
  page: number
  page_size: number
}

export type RemoteLoad<T> = (query: RemoteQuery) => Promise<Page<T>>

/**
 * The options of a picker over a list of any length (checks, datasources): the server searches
 * (`search`), pages (`more` appends the next page) and names the chosen items that are on no page
 * shown (`name`, filled by `nameChosen` through `?ids=`). Answers to an older search are dropped.
 */
export function useRemoteOptions<T extends { id: number }>(load: RemoteLoad<T>, labelOf: (item: T) => string, pageSize = 20) {
  const options = shallowRef<T[]>([])
  const total = ref(0)
  const query = ref<string | null>(null) // null: nothing asked yet
  const loading = ref(false)
  const loadingMore = ref(false)
  const error = ref('')
  const names = reactive(new Map<number, string>())
  let page = 1
  let latest = 0

  function remember(items: T[]): void {
    for (const item of items) names.set(item.id, labelOf(item))
  }

  async function search(text: string): Promise<void> {
    const ticket = ++latest
    query.value = text
    page = 1
    loading.value = true
    error.value = ''
    try {
      const answer = await load({ search: text.trim() || undefined, page: 1, page_size: pageSize })
      if (ticket !== latest) return
      options.value = answer.results
      total.value = answer.count
      remember(answer.results)
    } catch (failure) {
      if (ticket !== latest) return
      options.value = []
      total.value = 0
      error.value = errorMessage(failure)
    } finally {
      if (ticket === latest) loading.value = false
    }
  }

  async function more(): Promise<void> {
    if (loading.value || loadingMore.value || options.value.length >= total.value) return
    const ticket = latest
    loadingMore.value = true
    try {
      const answer = await load({ search: query.value?.trim() || undefined, page: page + 1, page_size: pageSize })
      if (ticket !== latest) return
      page += 1
      const seen = new Set(options.value.map((o) => o.id))
      options.value = [...options.value, ...answer.results.filter((o) => !seen.has(o.id))]
      total.value = answer.count
      remember(answer.results)
    } catch (failure) {
      if (ticket === latest) error.value = errorMessage(failure)
    } finally {
      loadingMore.value = false
    }
  }

  /** Names for chosen ids not seen yet, in one request; an id the caller may not see stays `#id`. */
  async function nameChosen(ids: number[]): Promise<void> {
    const unknown = [...new Set(ids)].filter((id) => !names.has(id))
    if (!unknown.length) return
    try {
      for (let start = 0; start < unknown.length; start += MAX_PAGE_SIZE) {
        const chunk = unknown.slice(start, start + MAX_PAGE_SIZE) // the server takes a page's worth of ids at once
        remember((await load({ ids: chunk.join(','), page: 1, page_size: chunk.length })).results)
      }
    } catch (failure) {
      error.value = errorMessage(failure)
    }
  }

  const name = (id: number) => names.get(id) ?? `#${id}`
  const hasMore = computed(() => options.value.length < total.value)
  return { options, total, query, loading, loadingMore, error, names, hasMore, search, more, nameChosen, name, remember }
}
