import { computed, ref, shallowRef, watch } from 'vue'
import { ApiError, errorMessage, type Page, type Paging } from '@/http'

/**
 * One page of a server-paged list (checks, runs, results) with its loading and error state: the
 * TablePager's page and size go to the server as `?page=&page_size=`, and only that page is held.
 * `restart()` after a filter changed asks for page 1 (one request, not two). Every server-paged
 * list page uses it (checks, runs, results, batches, datasources, incidents, schedules, channels).
 */
export function useServerPages<T>(load: (paging: Required<Paging>) => Promise<Page<T>>, initialSize = 20) {
  const page = ref(1)
  const pageSize = ref(initialSize)
  const data = shallowRef<Page<T>>()
  const loading = ref(false)
  const error = ref('')
  let latest = 0

  async function reload(): Promise<void> {
    const ticket = ++latest
    loading.value = true
    error.value = ''
    try {
      const answer = await load({ page: page.value, page_size: pageSize.value })
      if (ticket === latest) data.value = answer
    } catch (failure) {
      if (ticket !== latest) return
      if (failure instanceof ApiError && failure.status === 404 && page.value > 1) {
        // The list got shorter than this page (rows deleted, a run finished): show its first page.
        page.value = 1
        return
      }
      error.value = errorMessage(failure)
    } finally {
      if (ticket === latest) loading.value = false
    }
  }

  function restart(): void {
    if (page.value === 1) void reload()
    else page.value = 1 // the watcher below reloads
  }

  watch([page, pageSize], () => void reload())
  void reload()

  const rows = computed<T[]>(() => data.value?.results ?? [])
  const total = computed(() => data.value?.count ?? 0)
  return { page, pageSize, data, rows, total, loading, error, reload, restart }
}
