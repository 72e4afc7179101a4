package org.dqplatform.engine.profile;

import java.io.Serializable;
import java.util.Collections;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A table profile's figures in ONE pass over the batch: each task loops once over the rows the scan
 * decodes (the query's own InternalRows) and updates every column's figures (ColumnProfile); the
 * tasks' figures are merged by `reduce`. Spark SQL needs two scans for the same figures (the
 * histograms' bins need the min and max first) and loses whole-stage code generation to its
 * imperative aggregates; this pass costs about one scan plus the arithmetic.
 *
 * <p>What differs from the SQL steps (dq_engine/spark/profile.py says when each is used): distinct
 * counts beyond the counted values come from a HyperLogLog (DistinctSketch), quantiles and
 * histograms from a quantile sketch (QuantileSketch), exact while it holds every value.
 */
public final class ProfilePass {
  private ProfilePass() {}

  static final class Partial implements Serializable {
    private static final long serialVersionUID = 1L;
    long rows;
    final ColumnProfile[] columns;

    Partial(StructType schema, int limit) {
      StructField[] fields = schema.fields();
      columns = new ColumnProfile[fields.length];
      for (int i = 0; i < fields.length; i++) columns[i] = new ColumnProfile(fields[i].dataType(), limit);
    }

    void add(InternalRow row) {
      rows++;
      for (int i = 0; i < columns.length; i++) {
        ColumnProfile column = columns[i];
        if (column.error != null) continue;
        try {
          column.add(row, i);
        } catch (RuntimeException e) { // this column's error only
          column.fail(e);
        }
      }
    }

    Partial merge(Partial other) {
      rows += other.rows;
      for (int i = 0; i < columns.length; i++) columns[i].merge(other.columns[i]);
      return this;
    }
  }

  /**
   * The figures of every column of `frame`, as JSON: {"rows": n, "columns": [{...}, ...]} in the
   * frame's column order. `limit`: values counted exactly per column; `bins`: histogram bins;
   * `fractions`: the quantiles' fractions.
   */
  public static String run(Dataset<Row> frame, int limit, int bins, double[] fractions) {
    StructType schema = frame.schema();
    JavaRDD<InternalRow> rows = frame.queryExecution().toRdd().toJavaRDD();
    Partial total =
        rows.getNumPartitions() == 0
            ? new Partial(schema, limit)
            : rows.mapPartitions(
                iterator -> {
                  Partial partial = new Partial(schema, limit);
                  while (iterator.hasNext()) partial.add(iterator.next());
                  return Collections.singletonList(partial).iterator();
                })
            .reduce(Partial::merge);
    Json out = new Json();
    out.open().key("rows").number(total.rows).key("columns").array();
    for (ColumnProfile column : total.columns) column.json(out, bins, fractions);
    out.end().close();
    return out.toString();
  }
}
