package org.dqplatform.engine;

import java.io.Serializable;
import java.util.regex.Pattern;

import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A deterministic automaton that answers "does Java's Pattern.find() succeed on this string?"
 * directly on the UTF-8 bytes of a Spark string: no String is decoded, no Matcher allocated.
 *
 * The automaton is compiled in Python (dq_engine/fast_regex.py) only for patterns whose answer it
 * can reproduce exactly; this class only runs the table. The alphabet is the 128 ASCII characters,
 * U+0085, U+2028, U+2029 (Java's non-ASCII line terminators, which '.' and '$' treat specially) and
 * one symbol for every other code point. A string that is not well-formed UTF-8 is handed to
 * java.util.regex on its decoded form, exactly as Spark's RLIKE does, so the answer never differs.
 */
public final class Utf8Dfa implements Serializable {
  private static final long serialVersionUID = 1L;

  static final int SYMBOLS = 132;
  static final int NEL = 128, LINE_SEPARATOR = 129, PARAGRAPH_SEPARATOR = 130, OTHER = 131;
  private static final byte PLAIN = 0, ACCEPT = 1, DEAD = 2, ACCEPT_SINK = 3;

  private final String pattern;
  private final int start;
  private final int classes;
  private final int[] classOf; // symbol -> column of the table
  private final byte[] kind; // per state: PLAIN, ACCEPT, DEAD, ACCEPT_SINK
  // The table as the inner loop reads it: row offset + column -> the next state's row offset
  // (next * classes), or ~next when the next state ends the search (DEAD or ACCEPT_SINK). One
  // load per byte on the state's dependency chain: no multiply, no separate kind lookup.
  private final int[] rows;
  private transient Pattern fallback;

  /**
   * Parses the table written by fast_regex.serialize:
   * "dfa1;start;classes;classOf(132 ints, ',');kinds(one digit per state);table(ints, ',')".
   */
  public Utf8Dfa(String pattern, String encoded) {
    String[] parts = encoded.split(";", -1);
    if (parts.length != 6 || !parts[0].equals("dfa1")) {
      throw new IllegalArgumentException("Not an automaton written by dq_engine.fast_regex");
    }
    this.pattern = pattern;
    this.start = Integer.parseInt(parts[1]);
    this.classes = Integer.parseInt(parts[2]);
    this.classOf = ints(parts[3]);
    this.kind = new byte[parts[4].length()];
    for (int s = 0; s < kind.length; s++) {
      kind[s] = (byte) (parts[4].charAt(s) - '0');
    }
    int[] table = ints(parts[5]); // state * classes + column -> next state
    if (classOf.length != SYMBOLS || table.length != kind.length * classes || start < 0 || start >= kind.length) {
      throw new IllegalArgumentException("Inconsistent automaton table");
    }
    for (int next : table) {
      if (next < 0 || next >= kind.length) throw new IllegalArgumentException("Transition out of range");
    }
    for (int column : classOf) {
      if (column < 0 || column >= classes) throw new IllegalArgumentException("Symbol class out of range");
    }
    Pattern.compile(pattern); // the fallback must compile, as RLIKE's would
    this.rows = new int[table.length];
    for (int at = 0; at < table.length; at++) {
      int next = table[at];
      rows[at] = isFinal(next) ? ~next : next * classes;
    }
  }

  private boolean isFinal(int state) {
    return kind[state] == DEAD || kind[state] == ACCEPT_SINK;
  }

  private static int[] ints(String text) {
    String[] items = text.split(",");
    int[] values = new int[items.length];
    for (int i = 0; i < items.length; i++) values[i] = Integer.parseInt(items[i]);
    return values;
  }

  public String pattern() {
    return pattern;
  }

  /** Pattern.compile(pattern).matcher(s.toString()).find(0), computed on the bytes. */
  public boolean find(UTF8String s) {
    if (isFinal(start)) return kind[start] == ACCEPT_SINK;
    final Object base = s.getBaseObject();
    final long offset = s.getBaseOffset();
    final int n = s.numBytes();
    final int[] rows = this.rows;
    final int[] classOf = this.classOf;
    int row = start * classes;
    int i = 0;
    while (i < n) {
      int b = Platform.getByte(base, offset + i) & 0xFF;
      int symbol;
      if (b < 0x80) {
        symbol = b;
        i += 1;
      } else {
        int width;
        int lowest = 0x80, highest = 0xBF; // allowed range of the second byte (well-formed UTF-8)
        if (b >= 0xC2 && b <= 0xDF) {
          width = 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
          width = 3;
          if (b == 0xE0) lowest = 0xA0; // no overlong forms
          if (b == 0xED) highest = 0x9F; // no surrogates
        } else if (b >= 0xF0 && b <= 0xF4) {
          width = 4;
          if (b == 0xF0) lowest = 0x90;
          if (b == 0xF4) highest = 0x8F; // nothing above U+10FFFF
        } else {
          return slowFind(s);
        }
        if (i + width > n) return slowFind(s);
        int b1 = Platform.getByte(base, offset + i + 1) & 0xFF;
        if (b1 < lowest || b1 > highest) return slowFind(s);
        for (int j = 2; j < width; j++) {
          int c = Platform.getByte(base, offset + i + j) & 0xFF;
          if (c < 0x80 || c > 0xBF) return slowFind(s);
        }
        if (b == 0xC2 && b1 == 0x85) {
          symbol = NEL;
        } else if (b == 0xE2 && b1 == 0x80) {
          int b2 = Platform.getByte(base, offset + i + 2) & 0xFF;
          symbol = b2 == 0xA8 ? LINE_SEPARATOR : b2 == 0xA9 ? PARAGRAPH_SEPARATOR : OTHER;
        } else {
          symbol = OTHER;
        }
        i += width;
      }
      int next = rows[row + classOf[symbol]];
      if (next < 0) return kind[~next] == ACCEPT_SINK; // DEAD or ACCEPT_SINK: the answer is known
      row = next;
    }
    return kind[row / classes] == ACCEPT;
  }

  private boolean slowFind(UTF8String s) {
    Pattern compiled = fallback;
    if (compiled == null) {
      compiled = Pattern.compile(pattern);
      fallback = compiled;
    }
    return compiled.matcher(s.toString()).find(0);
  }
}
