import { computed, ref, watch, type Ref } from 'vue'

/** Client-side paging of a list already loaded (the results list, the checks list). */
export function usePagination<T>(items: Ref<T[]>, initialSize = 20) {
  const page = ref(1)
  const pageSize = ref(initialSize)
  const total = computed(() => items.value.length)
  const rows = computed(() => items.value.slice((page.value - 1) * pageSize.value, page.value * pageSize.value))
  // A filter that shortens the list must not leave the user on an empty page.
  watch([total, pageSize], () => {
    const last = Math.max(1, Math.ceil(total.value / pageSize.value))
    if (page.value > last) page.value = last
  })
  return { page, pageSize, total, rows }
}
