import { ref, shallowRef, watch } from 'vue'
import type { Page } from '@/api/watching'
import { errorMessage } from '@/http'

/** One page of a server-paged list (`?page=&page_size=` → {count, results}), reloaded when the
 * page or its size changes. */
export function useServerPage<T>(load: (page: number, pageSize: number) => Promise<Page<T>>, initialSize = 20) {
  const page = ref(1)
  const pageSize = ref(initialSize)
  const rows = shallowRef<T[]>([])
  const total = ref(0)
  const loading = ref(false)
  const error = ref('')
  let latest = 0

  async function reload(): Promise<void> {
    const ticket = ++latest
    loading.value = true
    error.value = ''
    try {
      const body = await load(page.value, pageSize.value)
      if (ticket !== latest) return
      rows.value = body.results
      total.value = body.count
      const last = Math.max(1, Math.ceil(body.count / pageSize.value))
      if (page.value > last) page.value = last // a deletion emptied the last page
    } catch (failure) {
      if (ticket === latest) error.value = errorMessage(failure)
    } finally {
      if (ticket === latest) loading.value = false
    }
  }

  watch([page, pageSize], () => void reload())
  void reload()
  return { page, pageSize, rows, total, loading, error, reload }
}
