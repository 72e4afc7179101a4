package org.dqplatform.engine;

import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Java regular expressions in bounded time: the text is handed to java.util.regex through a
 * {@link CharSequence} that counts every character the matcher reads, and the match is abandoned
 * with {@link RegexBudgetExceeded} once it has read more than {@link #budget(int)} characters. Java's
 * matcher backtracks, so a pattern like {@code (?=x)(x+)+y} reads a value of 30 x's about 2^30 times;
 * under the budget the check ends {@code error} with the reason instead of stalling the worker.
 *
 * <p>Used for the patterns the automaton ({@link Utf8Dfa}) does not answer, and for RLIKE,
 * regexp_extract and regexp_replace in filters and custom SQL. Results are Spark's (RLike,
 * RegExpExtract, RegExpReplace at position 1) for every value that stays within the budget.
 */
public final class GuardedRegex {
  /** Characters a match may read: a floor, plus a generous factor of the value's length. */
  static final long BASE_STEPS = 1_000_000L;
  static final long STEPS_PER_CHAR = 1_000L;

  private static final ConcurrentHashMap<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  private GuardedRegex() {}

  static long budget(int length) {
    return BASE_STEPS + STEPS_PER_CHAR * length;
  }

  static Pattern compiled(String pattern) {
    if (PATTERNS.size() > 256) {
      PATTERNS.clear(); // patterns are literals of a few checks: this never grows in practice
    }
    return PATTERNS.computeIfAbsent(pattern, Pattern::compile);
  }

  /** {@code text RLIKE pattern}: whether the pattern occurs anywhere in the text. */
  public static Boolean find(String text, String pattern) {
    if (text == null || pattern == null) return null;
    Matcher matcher = compiled(pattern).matcher(new Budgeted(text));
    try {
      return matcher.find();
    } catch (StackOverflowError e) {
      throw RegexBudgetExceeded.stack();
    }
  }

  /** {@code regexp_extract(text, pattern, group)}: the group of the first match, or "" when none. */
  public static String extract(String text, String pattern, Integer group) {
    if (text == null || pattern == null || group == null) return null;
    Matcher matcher = compiled(pattern).matcher(new Budgeted(text));
    if (group < 0 || group > matcher.groupCount()) {
      throw new IllegalArgumentException(
          "regexp_extract: the pattern has " + matcher.groupCount() + " group(s); group " + group + " does not exist");
    }
    try {
      if (!matcher.find()) return "";
      String value = matcher.group(group);
      return value == null ? "" : value;
    } catch (StackOverflowError e) {
      throw RegexBudgetExceeded.stack();
    }
  }

  /** {@code regexp_replace(text, pattern, replacement)}: every match replaced (Java's $n syntax). */
  public static String replace(String text, String pattern, String replacement) {
    if (text == null || pattern == null || replacement == null) return null;
    Matcher matcher = compiled(pattern).matcher(new Budgeted(text));
    try {
      return matcher.replaceAll(replacement);
    } catch (StackOverflowError e) {
      throw RegexBudgetExceeded.stack();
    }
  }

  /** A String as the matcher sees it, counting the characters it reads. */
  static final class Budgeted implements CharSequence {
    private final String text;
    private final int from;
    private final int to;
    private final long[] steps; // shared with sub-sequences: one budget per value
    private final long limit;

    Budgeted(String text) {
      this(text, 0, text.length(), new long[1], budget(text.length()));
    }

    private Budgeted(String text, int from, int to, long[] steps, long limit) {
      this.text = text;
      this.from = from;
      this.to = to;
      this.steps = steps;
      this.limit = limit;
    }

    @Override
    public char charAt(int index) {
      if (++steps[0] > limit) {
        throw RegexBudgetExceeded.steps(limit);
      }
      return text.charAt(from + index);
    }

    @Override
    public int length() {
      return to - from;
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return new Budgeted(text, from + start, from + end, steps, limit);
    }

    @Override
    public String toString() {
      return text.substring(from, to);
    }
  }
}
