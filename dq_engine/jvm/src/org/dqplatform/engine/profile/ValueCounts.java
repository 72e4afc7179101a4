package org.dqplatform.engine.profile;

import java.io.Serializable;
import java.util.function.UnaryOperator;

/**
 * Exact counts of a column's values while it has at most `limit` of them (open addressing on the
 * value's 64-bit hash, already computed for the distinct sketch), then nothing: `overflowed()`.
 * Keys are longs (integers, days, microseconds, booleans, a small decimal's unscaled value, a
 * double's bits) or objects (strings as cloned UTF8Strings, large decimals).
 */
final class ValueCounts implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int limit;
  private long[] hashes;
  private long[] longKeys;
  private Object[] objectKeys;
  private long[] counts;
  private boolean[] used;
  private int size;
  private boolean overflowed;

  ValueCounts(int limit) {
    this.limit = limit;
    int slots = Integer.highestOneBit(Math.max(limit, 8) * 2) * 2;
    hashes = new long[slots];
    longKeys = new long[slots];
    objectKeys = new Object[slots];
    counts = new long[slots];
    used = new boolean[slots];
  }

  boolean overflowed() {
    return overflowed;
  }

  int size() {
    return size;
  }

  /** Counts a long key; false once there are more than `limit` values. */
  boolean addLong(long hash, long key, long times) {
    if (overflowed) return false;
    int mask = used.length - 1;
    int at = (int) (hash ^ (hash >>> 32)) & mask;
    while (used[at]) {
      if (hashes[at] == hash && longKeys[at] == key) {
        counts[at] += times;
        return true;
      }
      at = (at + 1) & mask;
    }
    return insert(at, hash, key, null, times);
  }

  /** Counts an object key (`copy` is stored the first time: the row's own value is reused). */
  boolean addObject(long hash, Object key, UnaryOperator<Object> copy, long times) {
    if (overflowed) return false;
    int mask = used.length - 1;
    int at = (int) (hash ^ (hash >>> 32)) & mask;
    while (used[at]) {
      if (hashes[at] == hash && objectKeys[at].equals(key)) {
        counts[at] += times;
        return true;
      }
      at = (at + 1) & mask;
    }
    return insert(at, hash, 0L, copy.apply(key), times);
  }

  private boolean insert(int at, long hash, long key, Object object, long times) {
    if (size == limit) {
      overflowed = true;
      return false;
    }
    used[at] = true;
    hashes[at] = hash;
    longKeys[at] = key;
    objectKeys[at] = object;
    counts[at] = times;
    size++;
    return true;
  }

  /** Drops the counts (the column has too many values to count, or its shapes were taken). */
  void overflow() {
    overflowed = true;
    hashes = new long[0];
    longKeys = new long[0];
    objectKeys = new Object[0];
    counts = new long[0];
    used = new boolean[0];
    size = 0;
  }

  private boolean contains(long hash, long key, Object object) {
    int mask = used.length - 1;
    int at = (int) (hash ^ (hash >>> 32)) & mask;
    while (used[at]) {
      if (hashes[at] == hash && (object == null ? longKeys[at] == key : object.equals(objectKeys[at]))) return true;
      at = (at + 1) & mask;
    }
    return false;
  }

  /** Whether this and `other`'s values together are at most `limit` (neither overflowed). */
  boolean fits(ValueCounts other) {
    int union = size;
    for (int i = 0; i < other.used.length && union <= limit; i++) {
      if (other.used[i] && !contains(other.hashes[i], other.longKeys[i], other.objectKeys[i])) union++;
    }
    return union <= limit;
  }

  void merge(ValueCounts other) {
    if (overflowed) return;
    if (other.overflowed) {
      overflow();
      return;
    }
    for (int i = 0; i < other.used.length; i++) {
      if (!other.used[i]) continue;
      boolean kept =
          other.objectKeys[i] == null
              ? addLong(other.hashes[i], other.longKeys[i], other.counts[i])
              : addObject(other.hashes[i], other.objectKeys[i], k -> k, other.counts[i]);
      if (!kept) {
        overflow();
        return;
      }
    }
  }

  interface Visitor {
    void visit(long hash, long longKey, Object objectKey, long count);
  }

  void forEach(Visitor visitor) {
    for (int i = 0; i < used.length; i++) {
      if (used[i]) visitor.visit(hashes[i], longKeys[i], objectKeys[i], counts[i]);
    }
  }
}
