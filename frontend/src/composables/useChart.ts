import { onBeforeUnmount, onMounted, shallowRef, watch, type Ref } from 'vue'
import { init, use, type ComposeOption, type ECharts } from 'echarts/core'
import { LineChart, ScatterChart, type LineSeriesOption, type ScatterSeriesOption } from 'echarts/charts'
import {
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TooltipComponent,
  type DataZoomComponentOption,
  type GridComponentOption,
  type LegendComponentOption,
  type MarkLineComponentOption,
  type TooltipComponentOption,
} from 'echarts/components'
import { CanvasRenderer } from 'echarts/renderers'

// Only what the trend chart draws, so the bundle carries a fraction of ECharts.
use([LineChart, ScatterChart, GridComponent, TooltipComponent, LegendComponent, MarkLineComponent, DataZoomComponent, CanvasRenderer])

export type ChartOption = ComposeOption<
  | LineSeriesOption
  | ScatterSeriesOption
  | GridComponentOption
  | TooltipComponentOption
  | LegendComponentOption
  | MarkLineComponentOption
  | DataZoomComponentOption
>

/** An ECharts instance bound to an element, redrawn when `option` changes and resized with its box. */
export function useChart(element: Ref<HTMLElement | undefined>, option: Ref<ChartOption | null>) {
  const chart = shallowRef<ECharts>()
  let observer: ResizeObserver | undefined

  onMounted(() => {
    if (!element.value) return
    chart.value = init(element.value)
    if (option.value) chart.value.setOption(option.value, true)
    observer = new ResizeObserver(() => chart.value?.resize())
    observer.observe(element.value)
  })
  watch(option, (next) => {
    if (chart.value && next) chart.value.setOption(next, true)
  })
  onBeforeUnmount(() => {
    observer?.disconnect()
    chart.value?.dispose()
  })
  return chart
}
