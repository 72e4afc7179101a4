package org.dqplatform.engine.profile;

import org.apache.spark.unsafe.Platform;

/**
 * The profile pass's 64-bit hashes: of a long, and of a value's bytes read eight at a time, each
 * word mixed in by a multiply and a rotation and the result finished by MurmurHash3's fmix64 (full
 * avalanche, which the distinct-count sketch needs). Cheaper than XXH64 on the short strings that
 * fill most columns (codes, statuses, names), and only ever compared with itself.
 */
final class Hashing {
  private static final long SEED = 0x2545F4914F6CDD1DL;
  private static final long MULTIPLIER = 0x9E3779B97F4A7C15L;

  private Hashing() {}

  static long ofLong(long value) {
    return finish(SEED ^ (value * MULTIPLIER));
  }

  static long ofBytes(Object base, long at, int length) {
    long h = SEED ^ (length * MULTIPLIER);
    int i = 0;
    for (; i + 8 <= length; i += 8) {
      h = Long.rotateLeft(h ^ (Platform.getLong(base, at + i) * MULTIPLIER), 27) * 5 + 0x52DCE729;
    }
    if (i < length) {
      long tail = 0;
      for (int shift = 0; i < length; i++, shift += 8) tail |= (Platform.getByte(base, at + i) & 0xFFL) << shift;
      h = Long.rotateLeft(h ^ (tail * MULTIPLIER), 27) * 5 + 0x52DCE729;
    }
    return finish(h);
  }

  private static long finish(long h) {
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return h;
  }
}
