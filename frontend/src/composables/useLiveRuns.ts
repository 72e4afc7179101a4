import { ref, watch, type Ref } from 'vue'
import { getRun, isFinished } from '@/api/runs'
import type { Run } from '@/api/types'
import { usePolling } from './usePolling'

/**
 * Follows the runs that are still queued or running by asking for each of them alone
 * (GET /runs/{id}/), never for a whole list, every `intervalMs`. `live` holds their latest state;
 * `onFinished` hears of each run that ended, so the page can reload what it shows once.
 * Used by the runs list and the results dashboard.
 */
export function useLiveRuns(ids: Ref<number[]>, onFinished: (run: Run) => void, intervalMs = 3000) {
  const live = ref<Record<number, Run>>({})
  const following = new Set<number>()

  const polling = usePolling(async () => {
    for (const id of [...following]) {
      const run = await getRun(id)
      live.value = { ...live.value, [id]: run }
      if (isFinished(run)) {
        following.delete(id)
        onFinished(run)
      }
    }
    return following.size > 0
  }, intervalMs)

  watch(
    ids,
    (next) => {
      const added = next.filter((id) => !following.has(id))
      for (const id of added) following.add(id)
      if (added.length && !polling.active.value) polling.start(false)
    },
    { immediate: true },
  )

  return { live, active: polling.active }
}
