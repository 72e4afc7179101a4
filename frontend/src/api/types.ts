// Shapes of the API's JSON (see README.md's API table and the OpenAPI schema at /api/schema/).

export type CheckType =
  | 'comparison_minus_statistics'
  | 'statistics_minus_comparison'
  | 'statistics_comparison_percentage'
  | 'statistics_comparison_difference_comparison_percentage'
export type Operator = 'eq' | 'lt' | 'le' | 'gt' | 'ge' | 'ne'
export type RunStatus = 'queued' | 'running' | 'passed' | 'failed' | 'error' | 'unknown' | 'cancelled'
export type ResultStatus = 'pass' | 'fail' | 'error' | 'unknown'

export type DatasourceType = 'postgresql' | 'mysql' | 'file'

export interface Datasource {
  id: number
  name: string
  type: DatasourceType | string
  description?: string
  host?: string
  port?: number | null
  database?: string
  username?: string
  path?: string
  format?: string
  options?: Record<string, string | number | boolean | null>
  allowed_groups?: string[]
  has_password?: boolean
  /** What the signed-in user may do with it (lib/permissions.ts `can`). */
  permissions?: string[]
  created_at?: string
  updated_at?: string
}

/** What the datasource form sends: `password` is write-only (left out: keep the stored one). */
export interface DatasourceInput {
  name: string
  type: DatasourceType
  description: string
  host: string
  port: number | null
  database: string
  username: string
  password?: string
  path: string
  format: string
  options: Record<string, string | number | boolean | null>
  allowed_groups: string[]
}

export interface ConnectionTest {
  ok: boolean
  message: string
}

export interface TableInfo {
  name: string
}
export interface ColumnInfo {
  name: string
  type: string
}

export interface TemplateInput {
  field: string
  title: string
  help: string
  value_type: string
  required: boolean
  default: unknown
}

export interface RuleTemplate {
  key: string
  name: string
  rule_type: string
  dimension: string
  description: string
  version: number
  builtin: boolean
  rule_json: { comparison_types?: string[]; statistic_name?: string; [key: string]: unknown }
  inputs: TemplateInput[]
}

export interface ComparisonType {
  key: string
  name: string
  source?: string
  window?: string
  description?: string
}

/** One form-create rule as /rule-templates/{key}/form/ serves it (plain JSON). */
export interface FormRule {
  type: string
  field: string
  title?: string
  info?: string
  value?: unknown
  props?: Record<string, unknown>
  options?: Array<{ label: string; value: unknown }>
  validate?: Array<Record<string, unknown>>
  col?: { span?: number }
  link?: string[]
  effect?: { fetch?: Record<string, unknown> }
  control?: Array<{ value: unknown; rule: string[] }>
  wrap?: Record<string, unknown>
  [key: string]: unknown
}

export type Params = Record<string, unknown>

export interface Check {
  id: number
  name: string
  template: string
  params: Params
  /** The rule in words: "Pass when actual − expected ≤ 0" ('' when incomplete). */
  formula: string
  current_version: number
  /** The template version the current check version computes with. */
  template_version: number | null
  /** The template has a newer version; GET upgrade/ shows what changed, POST upgrade/ moves on. */
  upgrade_available: boolean
  /** Saving only: what could not be checked (a catalog that did not answer); saved without it. */
  warnings?: string[]
  owner: string | null
  /** A disabled check stays listed; schedules and batch runs skip it. */
  enabled: boolean
  tags: string[]
  /** What the caller may do with it: change, delete, run, clone. */
  permissions: string[]
  created_at: string
  updated_at: string
  /** The quality dimension the check names for itself; '' takes its template's. */
  dimension?: string
  /** The dimension the health scores file it under. */
  effective_dimension?: string
}

export interface CheckVersion {
  number: number
  name: string
  template_key: string
  template_version: number
  params: Params
  content_hash: string
  created_by: string | null
  created_at: string
  /** What changed, as its author said when saving or importing ('' when nothing was said). */
  message: string
}

export interface HistoryPoint {
  result: number
  run: number
  data_time: string
  /** The partition the point speaks for ("" for the whole table). */
  partition_key: string
  status: ResultStatus
  statistics_value: number | null
  comparison_value: number | null
  check_version: number
  threshold: number
  operator: Operator
  check_type: CheckType
  /** Where the statistic would have passed: its formula's band, or for a dynamic threshold the
   * range it was judged against; null: no band. */
  passing_band: PassingBand | null
  /** Anomaly detection only: beyond it the point failed; between it and `passing_band` it warned. */
  fail_band?: PassingBand | null
  /** Why an `error` result could not be evaluated. */
  message: string
}

/** Statistic values between `low` and `high` (null: unbounded) pass (`inside`) or fail (`outside`). */
export interface PassingBand {
  low: number | null
  high: number | null
  passes: 'inside' | 'outside'
}

export interface ComparisonSource {
  type?: string
  /** `anomaly`: judged by anomaly detection (its `verdict`: pass, warn, fail or unknown). */
  source?: string
  verdict?: string
  /** Dynamic ranges and anomaly detection: what the baseline was made of, in a sentence. */
  learned?: { sentence: string }
  batch?: string
  baseline_runs?: number[]
  values?: number
  /** History: the dates looked in (`start` null: every earlier date; `latest`: at most that many);
   * a dynamic range: its window's name, e.g. "last_7_runs". */
  window?: { start: string | null; end: string; latest?: number } | string
}

export interface Result {
  id: number
  run: number
  check: number
  check_name: string
  check_version: number
  template: string
  /** The template's name ("Null check"), for people; `template` is its key. */
  template_name: string
  batch: string
  status: ResultStatus
  statistic_name: string
  statistics_value: number | null
  comparison_value: number | null
  comparison_type: string
  comparison_source: ComparisonSource
  check_type: CheckType
  operator: Operator
  threshold: number
  failure_strategy: 'alert' | 'block' | string
  formula_value: number | null
  /** The rule in words: "Pass when actual − expected ≤ 0". */
  formula: string
  /** The rule applied to the numbers: "Pass when …: 2 − 0 = 2 > 0 → fail"; '' for an error. */
  verdict: string
  /** A `block` check that failed or could not be evaluated: it stops a workflow. */
  blocks: boolean
  message: string
  error_row_count: number | null
  error_rows_written: number | null
  has_error_rows: boolean
  rows_scanned: number | null
  /** What the statistic is made of: a row_level_check's per-check failed rows (and where the
   * cleansed output went), a schema contract's violations; {} for other templates. */
  details: ResultDetails
  data_time: string
  created_at: string
  /** Where the result's batch looked. */
  datasource: { id: number; name: string } | null
  table: string
  run_status: RunStatus
}

export interface ResultDetails {
  checks?: Array<{ name: string; failed_rows: number | null; critical: boolean; message?: string }>
  violations?: string[]
  output_path?: string
}

export interface BatchDefinition {
  datasource_id: number
  datasource: string
  table: string
  filter: string | null
  scan_mode: string
  data_version?: string | null
  /** The engine that read the batch (spark, duckdb, pushdown): chosen when the run started, and
   * once it ended the one that actually read it. */
  engine?: string
  /** Set when the engine chosen at start did not read the batch (pushdown refused one of its checks). */
  engine_chosen?: string
  /** Why that engine: "auto: local parquet files, 1.2 MB (DuckDB limit 2.0 GB)", "spark: chosen for this run". */
  engine_reason?: string
}

export interface Run {
  id: number
  status: RunStatus
  blocking: boolean
  trigger: string
  attempt: number
  /** The run this one retries (attempt − 1), or null for a first attempt. */
  retry_of: number | null
  biz_date: string
  data_time: string
  parameters: Record<string, string>
  batches: Record<string, BatchDefinition>
  checks: Array<{ check: number; version: number; name: string }>
  rule_set_hash: string
  scan_mode: string
  spark_application_id: string
  message: string
  created_by: string | null
  created_at: string
  started_at: string | null
  finished_at: string | null
  duration_seconds: number | null
  /** What the signed-in user may do with it (lib/permissions.ts `can`). */
  permissions?: string[]
  /** A run's own page (GET /runs/{id}/) lists its results; the runs list counts them instead. */
  results?: Result[]
  /** The runs list's rows: results by status, e.g. {pass: 12, fail: 1}. */
  result_counts?: Record<string, number>
}

export interface ErrorRowsPage {
  count: number
  total_offending_rows: number | null
  page: number
  page_size: number
  columns: string[]
  rows: unknown[][]
}

export interface LatestResult {
  check: number
  check_name: string
  result: number
  run: number
  status: ResultStatus
  statistics_value: number | null
  created_at: string
  blocks: boolean
}

export interface ResultsSummary {
  since: string
  hours: number
  checks: number
  /** Of `checks` (live, visible), how many have a result in the window: never more than `checks`. */
  checks_run: number
  results: number
  passed: number
  failed: number
  errors: number
  unknown: number
  pass_rate: number | null
  open_failures: number
  blocking_failures: number
  failing_checks: LatestResult[]
  runs: number
  active_runs: number
}

/** GET /checks/{id}/upgrade/: what moving to the template's current version would change. */
export interface UpgradePlan {
  from: number
  to: number
  template: string
  changes: Array<{ path: string; change: string; summary: string }>
}

/** A check's anomaly detection record (`GET /checks/{id}/false-alarms/`). */
export interface FalseAlarms {
  check: number
  anomalies_judged: number
  marked_expected: number
  marked_incident: number
  /** expected ÷ anomalies judged; null before the first anomaly. */
  false_alarm_rate: number | null
}

/** `GET|POST /results/{id}/feedback/`. */
export interface ResultFeedbackState {
  result: number
  judged_by_anomaly_detection: boolean
  anomaly: boolean
  feedback: { verdict: 'expected' | 'incident'; given_by: string | null; given_at: string } | null
  may_give_feedback: boolean
  check: FalseAlarms
  incident_resolved?: number | null
}
