package org.dqplatform.engine.profile;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.*;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One column's figures over the rows one task reads, then merged across tasks: non-NULL values,
 * exact value counts while there are at most `limit` values (every other figure then follows from
 * them, exactly), else a distinct-count sketch and by kind min, max, sum, mean, variance (shifted
 * sums, merged by Chan's formula) and a quantile sketch (numbers, times), lengths, empty strings
 * and shape masks (strings). A value that cannot be read ends this column with an
 * error; the other columns go on.
 */
final class ColumnProfile implements Serializable {
  private static final long serialVersionUID = 1L;

  enum Reader { BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, DECIMAL, BIG_DECIMAL, DATE, TIMESTAMP, STRING, BOOLEAN, OTHER }

  final Reader reader;
  final int precision, scale;
  long values;
  String error;

  // numbers and times: min and max as longs (integers, days, microseconds, a decimal's unscaled
  // value), doubles or big decimals, by reader
  private boolean seen;
  private long minLong, maxLong;
  private double minDouble, maxDouble;
  private BigDecimal minBig, maxBig;
  private long sumLong;
  private BigDecimal sumBig; // a big decimal's sum, or a long sum past Long's range
  private double sumDouble;
  private long moments;
  private double shift, shiftedSum, shiftedSquares;

  // strings
  private long lengthMin = Long.MAX_VALUE, lengthMax = Long.MIN_VALUE, lengthSum, empty;
  private final long[] masks = new long[8];

  private final DistinctSketch distinct;
  private final QuantileSketch quantiles;
  private final ValueCounts counts;

  ColumnProfile(DataType type, int limit) {
    reader = readerOf(type);
    precision = type instanceof DecimalType ? ((DecimalType) type).precision() : 0;
    scale = type instanceof DecimalType ? ((DecimalType) type).scale() : 0;
    boolean other = reader == Reader.OTHER;
    distinct = other ? null : new DistinctSketch();
    counts = other ? null : new ValueCounts(limit);
    quantiles = number() || time() ? new QuantileSketch() : null;
  }

  static Reader readerOf(DataType type) {
    if (type instanceof ByteType) return Reader.BYTE;
    if (type instanceof ShortType) return Reader.SHORT;
    if (type instanceof IntegerType) return Reader.INT;
    if (type instanceof LongType) return Reader.LONG;
    if (type instanceof FloatType) return Reader.FLOAT;
    if (type instanceof DoubleType) return Reader.DOUBLE;
    if (type instanceof DecimalType) {
      return ((DecimalType) type).precision() <= Decimal.MAX_LONG_DIGITS() ? Reader.DECIMAL : Reader.BIG_DECIMAL;
    }
    if (type instanceof DateType) return Reader.DATE;
    if (type instanceof TimestampType || type instanceof TimestampNTZType) return Reader.TIMESTAMP;
    if (type instanceof StringType) return Reader.STRING;
    if (type instanceof BooleanType) return Reader.BOOLEAN;
    return Reader.OTHER;
  }

  boolean number() {
    return reader.ordinal() <= Reader.BIG_DECIMAL.ordinal();
  }

  boolean time() {
    return reader == Reader.DATE || reader == Reader.TIMESTAMP;
  }

  private boolean longs() {
    return reader == Reader.BYTE || reader == Reader.SHORT || reader == Reader.INT || reader == Reader.LONG
        || reader == Reader.DECIMAL || time();
  }

  // --- one row --------------------------------------------------------------------------------
  // While a column's values are counted (at most `limit` of them), a row costs one probe of the
  // counts: every other figure is derived from the counts once, when they are answered or when
  // they overflow (`replay`). Only a column with more values pays for each figure on each row.
  void add(InternalRow row, int i) {
    if (row.isNullAt(i)) return;
    values++;
    switch (reader) {
      case BYTE: whole(row.getByte(i)); break;
      case SHORT: whole(row.getShort(i)); break;
      case INT: whole(row.getInt(i)); break;
      case LONG: whole(row.getLong(i)); break;
      case FLOAT: floating(row.getFloat(i)); break;
      case DOUBLE: floating(row.getDouble(i)); break;
      case DECIMAL:
        decimal(row instanceof UnsafeRow ? row.getLong(i) : row.getDecimal(i, precision, scale).toUnscaledLong());
        break;
      case BIG_DECIMAL: big(row.getDecimal(i, precision, scale).toJavaBigDecimal()); break;
      case DATE: moment(row.getInt(i)); break;
      case TIMESTAMP: moment(row.getLong(i)); break;
      case STRING: text(row.getUTF8String(i)); break;
      case BOOLEAN: flag(row.getBoolean(i)); break;
      default: break;
    }
  }

  /**
   * One column of a batch the scan decoded (column by column: the scan's own vectors, without
   * building rows); the same figures as `add`. The two switches stay apart on purpose: one typed
   * getter call per value, no accessor object between the loop and the vector on this hot path.
   */
  void addVector(ColumnVector vector, int rows) {
    boolean nulls = vector.hasNull();
    if (reader == Reader.OTHER) {
      values += rows - vector.numNulls();
      return;
    }
    for (int r = 0; r < rows; r++) {
      if (nulls && vector.isNullAt(r)) continue;
      values++;
      switch (reader) {
        case BYTE: whole(vector.getByte(r)); break;
        case SHORT: whole(vector.getShort(r)); break;
        case INT: whole(vector.getInt(r)); break;
        case LONG: whole(vector.getLong(r)); break;
        case FLOAT: floating(vector.getFloat(r)); break;
        case DOUBLE: floating(vector.getDouble(r)); break;
        case DECIMAL: decimal(precision <= Decimal.MAX_INT_DIGITS() ? vector.getInt(r) : vector.getLong(r)); break;
        case BIG_DECIMAL: big(vector.getDecimal(r, precision, scale).toJavaBigDecimal()); break;
        case DATE: moment(vector.getInt(r)); break;
        case TIMESTAMP: moment(vector.getLong(r)); break;
        case STRING: text(vector.getUTF8String(r)); break;
        case BOOLEAN: flag(vector.getBoolean(r)); break;
        default: break;
      }
    }
  }

  private boolean counted(long hash, long key) {
    if (counts.overflowed()) return false;
    if (counts.addLong(hash, key, 1)) return true;
    overflow();
    return false;
  }

  private boolean counted(long hash, Object key, UnaryOperator<Object> copy) {
    if (counts.overflowed()) return false;
    if (counts.addObject(hash, key, copy, 1)) return true;
    overflow();
    return false;
  }

  /** Too many values to count: the counted ones' figures are taken now, each row's from now on. */
  private void overflow() {
    replay(false);
    counts.overflow();
  }

  /**
   * Every counted value's figures, weighted by its count. `last`: the counts are answered, so the
   * quantile sketch takes each value with its weight as it is (exact); before, while rows still
   * come, it takes the value as many times as it was counted.
   */
  private void replay(boolean last) {
    finishing = last;
    counts.forEach((hash, longKey, objectKey, times) -> {
      if (!last) distinct.add(hash);
      switch (reader) {
        case FLOAT: case DOUBLE: floatingFigures(Double.longBitsToDouble(longKey), times); break;
        case DECIMAL: decimalFigures(longKey, times); break;
        case BIG_DECIMAL: bigFigures((BigDecimal) objectKey, times); break;
        case DATE: case TIMESTAMP: momentFigures(longKey, times); break;
        case STRING: textFigures((UTF8String) objectKey, times); break;
        case BOOLEAN: break;
        default: wholeFigures(longKey, times);
      }
    });
    finishing = false;
  }

  private transient boolean finishing;

  private void sketch(double value, long times) {
    if (Double.isNaN(value)) return;
    if (finishing) {
      quantiles.addWeighted(value, times);
    } else {
      for (long t = 0; t < times; t++) quantiles.add(value);
    }
  }

  private void flag(boolean value) {
    long bit = value ? 1 : 0;
    long hash = Hashing.ofLong(bit);
    if (!counted(hash, bit)) distinct.add(hash);
  }

  private void whole(long value) {
    long hash = Hashing.ofLong(value);
    if (counted(hash, value)) return;
    distinct.add(hash);
    wholeFigures(value, 1);
  }

  private void wholeFigures(long value, long times) {
    extremes(value);
    addSum(value, times);
    moments(value, times);
  }

  private void addSum(long value, long times) {
    if (sumBig == null) {
      long product = value * times;
      boolean fits = Math.multiplyHigh(value, times) == (product >> 63);
      long total = sumLong + product;
      if (fits && ((sumLong ^ total) & (product ^ total)) >= 0) {
        sumLong = total;
        return;
      }
      sumBig = BigDecimal.valueOf(sumLong); // past a long's range: exact from here on
    }
    sumBig = sumBig.add(BigDecimal.valueOf(value).multiply(BigDecimal.valueOf(times)));
  }

  private void extremes(long value) {
    if (!seen) {
      seen = true;
      minLong = maxLong = value;
    } else if (value < minLong) {
      minLong = value;
    } else if (value > maxLong) {
      maxLong = value;
    }
  }

  private void moments(double value, long times) {
    // Sums shifted by the first value (no division per value, and no cancellation as long as the
    // first value is of the data's magnitude); merged as (count, mean, M2) by Chan's formula.
    if (moments == 0) shift = value;
    double shifted = value - shift;
    sumDouble += value * times;
    moments += times;
    shiftedSum += shifted * times;
    shiftedSquares += shifted * shifted * times;
    sketch(value, times);
  }

  private double mean() {
    return shift + shiftedSum / moments;
  }

  private double m2() {
    return Math.max(0.0, shiftedSquares - shiftedSum * shiftedSum / moments);
  }

  private void floating(double value) {
    double normal = value == 0.0 ? 0.0 : value; // -0.0 and 0.0 are one value, as Spark groups them
    long bits = Double.doubleToLongBits(normal); // every NaN has one bit pattern here
    long hash = Hashing.ofLong(bits);
    if (counted(hash, bits)) return;
    distinct.add(hash);
    floatingFigures(value, 1);
  }

  private void floatingFigures(double value, long times) {
    if (!seen) {
      seen = true;
      minDouble = maxDouble = value;
    } else {
      if (Double.compare(value, minDouble) < 0) minDouble = value; // NaN is the largest, as in Spark
      if (Double.compare(value, maxDouble) > 0) maxDouble = value;
    }
    moments(value, times);
  }

  private static final double[] TENS = new double[19];

  static {
    TENS[0] = 1;
    for (int i = 1; i < TENS.length; i++) TENS[i] = TENS[i - 1] * 10;
  }

  private void decimal(long unscaled) {
    long hash = Hashing.ofLong(unscaled);
    if (counted(hash, unscaled)) return;
    distinct.add(hash);
    decimalFigures(unscaled, 1);
  }

  private void decimalFigures(long unscaled, long times) {
    extremes(unscaled);
    addSum(unscaled, times);
    moments(unscaled / TENS[scale], times);
  }

  private void big(BigDecimal value) {
    byte[] bytes = value.unscaledValue().toByteArray();
    long hash = Hashing.ofBytes(bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
    if (counted(hash, value, k -> k)) return;
    distinct.add(hash);
    bigFigures(value, 1);
  }

  private void bigFigures(BigDecimal value, long times) {
    if (!seen) {
      seen = true;
      minBig = maxBig = value;
    } else if (value.compareTo(minBig) < 0) {
      minBig = value;
    } else if (value.compareTo(maxBig) > 0) {
      maxBig = value;
    }
    BigDecimal product = times == 1 ? value : value.multiply(BigDecimal.valueOf(times));
    sumBig = sumBig == null ? product : sumBig.add(product);
    moments(value.doubleValue(), times);
  }

  private void moment(long value) {
    long hash = Hashing.ofLong(value);
    if (counted(hash, value)) return;
    distinct.add(hash);
    momentFigures(value, 1);
  }

  private void momentFigures(long value, long times) {
    extremes(value);
    sketch(value, times);
  }

  /**
   * Characters in a value: its bytes less the UTF-8 continuation bytes (10xxxxxx), counted eight at
   * a time. The same as UTF8String.numChars() for valid UTF-8, at a fraction of its cost.
   */
  static int characters(UTF8String value) {
    Object base = value.getBaseObject();
    long at = value.getBaseOffset();
    int bytes = value.numBytes();
    int continuations = 0;
    int i = 0;
    for (; i + 8 <= bytes; i += 8) {
      long word = Platform.getLong(base, at + i);
      continuations += Long.bitCount(word & ~(word << 1) & 0x8080808080808080L);
    }
    for (; i < bytes; i++) {
      if ((Platform.getByte(base, at + i) & 0xC0) == 0x80) continuations++;
    }
    return bytes - continuations;
  }

  private void text(UTF8String value) {
    long hash = Hashing.ofBytes(value.getBaseObject(), value.getBaseOffset(), value.numBytes());
    if (counted(hash, value, k -> ((UTF8String) k).clone())) return;
    distinct.add(hash);
    textFigures(value, 1);
  }

  private void textFigures(UTF8String value, long times) {
    int length = characters(value);
    if (length < lengthMin) lengthMin = length;
    if (length > lengthMax) lengthMax = length;
    lengthSum += length * times;
    if (length == 0) empty += times;
    masks[mask(value)] += times;
  }

  private static int mask(UTF8String value) {
    Object base = value.getBaseObject();
    if (base instanceof byte[]) {
      return Shapes.mask((byte[]) base, (int) (value.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), value.numBytes());
    }
    byte[] bytes = value.getBytes();
    return Shapes.mask(bytes, 0, bytes.length);
  }

  void fail(Throwable cause) {
    String message = cause.getMessage();
    error = cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  // --- across tasks ---------------------------------------------------------------------------
  void merge(ColumnProfile other) {
    if (error == null && other.error != null) error = other.error;
    values += other.values;
    if (reader == Reader.OTHER) return;
    boolean mine = !counts.overflowed(), theirs = !other.counts.overflowed();
    if (mine && theirs && counts.fits(other.counts)) { // every figure still follows from the counts
      counts.merge(other.counts);
      return;
    }
    if (mine) overflow();
    if (theirs) other.overflow();
    distinct.merge(other.distinct);
    if (reader == Reader.STRING) {
      lengthMin = Math.min(lengthMin, other.lengthMin);
      lengthMax = Math.max(lengthMax, other.lengthMax);
      lengthSum += other.lengthSum;
      empty += other.empty;
      for (int m = 0; m < masks.length; m++) masks[m] += other.masks[m];
    }
    if (!other.seen) return;
    if (!seen) {
      seen = true;
      minLong = other.minLong;
      maxLong = other.maxLong;
      minDouble = other.minDouble;
      maxDouble = other.maxDouble;
      minBig = other.minBig;
      maxBig = other.maxBig;
    } else {
      minLong = Math.min(minLong, other.minLong);
      maxLong = Math.max(maxLong, other.maxLong);
      if (Double.compare(other.minDouble, minDouble) < 0) minDouble = other.minDouble;
      if (Double.compare(other.maxDouble, maxDouble) > 0) maxDouble = other.maxDouble;
      if (minBig != null && other.minBig.compareTo(minBig) < 0) minBig = other.minBig;
      if (maxBig != null && other.maxBig.compareTo(maxBig) > 0) maxBig = other.maxBig;
    }
    quantiles.merge(other.quantiles);
    if (!number()) return;
    if (sumBig == null && other.sumBig == null && reader != Reader.BIG_DECIMAL) {
      long total = sumLong + other.sumLong;
      if (((sumLong ^ total) & (other.sumLong ^ total)) < 0) {
        sumBig = BigDecimal.valueOf(sumLong).add(BigDecimal.valueOf(other.sumLong));
      } else {
        sumLong = total;
      }
    } else {
      sumBig = exactSum().add(other.exactSum());
    }
    sumDouble += other.sumDouble;
    if (other.moments > 0 && moments == 0) {
      moments = other.moments;
      shift = other.shift;
      shiftedSum = other.shiftedSum;
      shiftedSquares = other.shiftedSquares;
    } else if (other.moments > 0) {
      long n = moments + other.moments;
      double delta = other.mean() - mean();
      double m2 = m2() + other.m2() + delta * delta * ((double) moments * other.moments / n);
      shift = mean() + delta * other.moments / n; // shifted by the mean: the sum is 0, the squares M2
      shiftedSum = 0.0;
      shiftedSquares = m2;
      moments = n;
    }
  }

  private BigDecimal exactSum() {
    if (sumBig != null) return sumBig;
    return reader == Reader.BIG_DECIMAL ? BigDecimal.ZERO : BigDecimal.valueOf(sumLong);
  }

  // --- the answer -----------------------------------------------------------------------------
  void json(Json out, int bins, double[] fractions) {
    out.open();
    out.key("values").number(values);
    if (error != null) out.key("error").string(error);
    if (reader == Reader.OTHER) {
      out.close();
      return;
    }
    boolean countedAll = !counts.overflowed();
    if (countedAll) replay(true); // every figure from the counts, quantiles and histogram exact
    out.key("distinct").number(countedAll ? counts.size() : distinct.estimate());
    out.key("counts");
    if (!countedAll) {
      out.nothing();
    } else {
      out.array();
      counts.forEach((hash, longKey, objectKey, count) -> {
        out.array();
        key(out, longKey, objectKey);
        out.number(count).end();
      });
      out.end();
    }
    if (reader == Reader.STRING) {
      boolean any = values > 0;
      out.key("length_min").number(any ? lengthMin : null);
      out.key("length_max").number(any ? lengthMax : null);
      out.key("length_mean").decimal(any ? (double) lengthSum / values : null);
      out.key("empty").number(empty);
      out.key("masks").array();
      for (long m : masks) out.number(m);
      out.end();
    }
    if (seen) {
      out.key("min");
      extreme(out, minLong, minDouble, minBig);
      out.key("max");
      extreme(out, maxLong, maxDouble, maxBig);
      if (quantiles.count() > 0) {
        out.key("quantiles").array();
        for (double q : quantiles.quantiles(fractions)) {
          if (time()) out.number(Math.round(q));
          else out.decimal(q);
        }
        out.end();
        out.key("sketch_exact").bool(countedAll || quantiles.exact());
      }
    }
    if (seen && number()) {
      out.key("sum");
      if (sumBig != null || reader == Reader.BIG_DECIMAL || reader == Reader.DECIMAL) {
        BigDecimal total = exactSum();
        out.string(reader == Reader.DECIMAL ? total.movePointLeft(scale).toPlainString() : total.toPlainString());
      } else if (reader == Reader.FLOAT || reader == Reader.DOUBLE) {
        out.decimal(sumDouble);
      } else {
        out.number(sumLong);
      }
      out.key("mean").decimal(sumDouble / moments);
      out.key("stddev").decimal(moments > 1 ? Math.sqrt(m2() / (moments - 1)) : null);
      double low = asDouble(minLong, minDouble, minBig);
      double high = asDouble(maxLong, maxDouble, maxBig);
      if (Double.isFinite(low) && Double.isFinite(high) && low < high) {
        out.key("histogram").array();
        for (long c : quantiles.histogram(low, high, bins)) out.number(c);
        out.end();
      }
    }
    out.close();
  }

  private void extreme(Json out, long asLong, double asDouble, BigDecimal asBig) {
    switch (reader) {
      case FLOAT: case DOUBLE: out.decimal(asDouble); break;
      case DECIMAL: out.string(BigDecimal.valueOf(asLong, scale).toPlainString()); break;
      case BIG_DECIMAL: out.string(asBig.toPlainString()); break;
      default: out.number(asLong);
    }
  }

  private double asDouble(long asLong, double asDouble, BigDecimal asBig) {
    switch (reader) {
      case FLOAT: case DOUBLE: return asDouble;
      case DECIMAL: return Double.parseDouble(BigDecimal.valueOf(asLong, scale).toString());
      case BIG_DECIMAL: return Double.parseDouble(asBig.toString());
      default: return asLong;
    }
  }

  private void key(Json out, long longKey, Object objectKey) {
    switch (reader) {
      case FLOAT: case DOUBLE: out.decimal(Double.longBitsToDouble(longKey)); break;
      case DECIMAL: out.string(BigDecimal.valueOf(longKey, scale).toPlainString()); break;
      case BIG_DECIMAL: out.string(((BigDecimal) objectKey).toPlainString()); break;
      case STRING: out.string(objectKey.toString()); break;
      case BOOLEAN: out.bool(longKey == 1); break;
      default: out.number(longKey);
    }
  }
}
