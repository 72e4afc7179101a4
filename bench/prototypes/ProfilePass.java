package org.dqplatform.bench;

import java.io.Serializable;
import java.util.*;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.XXH64;
import org.apache.spark.sql.types.*;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A measurement, not the engine: ONE loop per partition over the rows Spark decodes (the same
 * InternalRows a query reads), computing what a profile's first step needs of every column: count,
 * min, max, sum, mean and M2 (Welford), string lengths and empties, a HyperLogLog (2^12 registers,
 * XXH64 as Spark's), a quantile buffer sorted and halved when full (the cost of a KLL-like sketch)
 * and exact value counts up to 1,000 values. It returns a checksum only. bench/profile_pass.py runs
 * it against the scan floor (bench/README.md, "Table profiles").
 */
public final class ProfilePass {
  static final int P = 12, M = 1 << P;

  static final class Col implements Serializable {
    final int kind; // 0 bigint, 1 int, 2 decimal, 3 string, 4 timestamp (the orders' types only)
    final int prec, scale;
    long n, lenMin = Long.MAX_VALUE, lenMax = Long.MIN_VALUE, lenSum, empty;
    double min = Double.POSITIVE_INFINITY, max = Double.NEGATIVE_INFINITY, mean, m2, sum;
    final byte[] hll = new byte[M];
    double[] buf = new double[1 << 14]; int used; double[] kept = new double[0];
    HashMap<Object, long[]> counts = new HashMap<>();
    Col(int kind, int prec, int scale) { this.kind = kind; this.prec = prec; this.scale = scale; }

    void hash(long h) {
      int idx = (int) (h >>> (64 - P));
      int rho = Long.numberOfLeadingZeros((h << P) | (1L << (P - 1))) + 1;
      if (rho > hll[idx]) hll[idx] = (byte) rho;
    }
    void num(double x) {
      n++; if (x < min) min = x; if (x > max) max = x; sum += x;
      double d = x - mean; mean += d / n; m2 += d * (x - mean);
      buf[used++] = x;
      if (used == buf.length) { Arrays.sort(buf); double[] half = new double[used / 2]; for (int i = 0; i < half.length; i++) half[i] = buf[2 * i + (int)(n & 1)]; kept = half; used = 0; }
    }
    void count(Object key) {
      if (counts == null) return;
      long[] c = counts.get(key);
      if (c == null) { if (counts.size() >= 1000) { counts = null; return; } counts.put(key instanceof UTF8String ? ((UTF8String) key).clone() : key, new long[] {1}); }
      else c[0]++;
    }
    void add(InternalRow row, int i) {
      if (row.isNullAt(i)) return;
      switch (kind) {
        case 0: case 4: { long v = row.getLong(i); hash(XXH64.hashLong(v, 42)); num(v); count(v); break; }
        case 1: { int v = row.getInt(i); hash(XXH64.hashInt(v, 42)); num(v); count(v); break; }
        case 2: { long v = row.getDecimal(i, prec, scale).toUnscaledLong(); hash(XXH64.hashLong(v, 42)); num(v / Math.pow(10, scale)); count(v); break; }
        default: {
          UTF8String s = row.getUTF8String(i); n++;
          int len = s.numChars(); if (len < lenMin) lenMin = len; if (len > lenMax) lenMax = len; lenSum += len; if (len == 0) empty++;
          hash(XXH64.hashUnsafeBytes(s.getBaseObject(), s.getBaseOffset(), s.numBytes(), 42)); count(s);
        }
      }
    }
  }

  public static String run(Dataset<Row> df) {
    StructType schema = df.schema();
    int n = schema.size();
    int[] kinds = new int[n]; int[] precs = new int[n]; int[] scales = new int[n];
    for (int i = 0; i < n; i++) {
      DataType t = schema.fields()[i].dataType();
      if (t instanceof LongType) kinds[i] = 0; else if (t instanceof IntegerType) kinds[i] = 1;
      else if (t instanceof DecimalType) { kinds[i] = 2; precs[i] = ((DecimalType) t).precision(); scales[i] = ((DecimalType) t).scale(); }
      else if (t instanceof StringType) kinds[i] = 3; else kinds[i] = 4;
    }
    JavaRDD<InternalRow> rdd = df.queryExecution().toRdd().toJavaRDD();
    List<Long> parts = rdd.mapPartitions(it -> {
      Col[] cols = new Col[n];
      for (int i = 0; i < n; i++) cols[i] = new Col(kinds[i], precs[i], scales[i]);
      long rows = 0;
      while (it.hasNext()) { InternalRow r = it.next(); rows++; for (int i = 0; i < n; i++) cols[i].add(r, i); }
      long total = 0; for (Col c : cols) { total += c.n; for (byte b : c.hll) total += b; }
      return Collections.singletonList(total).iterator();
    }).collect();
    return parts.toString();
  }
}
