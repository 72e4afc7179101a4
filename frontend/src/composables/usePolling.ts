import { onBeforeUnmount, ref } from 'vue'

/**
 * Calls `tick` every `intervalMs` until it returns false (e.g. the run ended) or the component
 * goes away. Waits for each tick before scheduling the next, so slow answers never pile up;
 * pauses while the tab is hidden.
 */
export function usePolling(tick: () => Promise<boolean>, intervalMs = 1000) {
  const active = ref(false)
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = true

  const schedule = () => {
    if (!stopped) timer = setTimeout(step, document.hidden ? intervalMs * 4 : intervalMs)
  }

  async function step() {
    let again = true
    try {
      again = await tick()
    } catch {
      again = true // a failed poll is retried; the page shows the error the tick recorded
    }
    if (!again) stop()
    else schedule()
  }

  function start(immediately = true) {
    stop()
    stopped = false
    active.value = true
    if (immediately) void step()
    else schedule()
  }

  function stop() {
    stopped = true
    active.value = false
    if (timer) clearTimeout(timer)
    timer = undefined
  }

  onBeforeUnmount(stop)
  return { active, start, stop }
}
