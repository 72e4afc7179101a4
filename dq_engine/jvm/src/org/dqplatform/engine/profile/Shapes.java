package org.dqplatform.engine.profile;

/**
 * The three string shapes a profile counts, matched by hand on a value's UTF-8 bytes, answering as
 * Python's `re.match` does for the patterns of dq_engine/profiling/queries.py SHAPES (a `$` also
 * matches before one final newline):
 *
 * <ul>
 *   <li>numeric {@code ^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$}
 *   <li>date {@code ^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?$}
 *   <li>email {@code ^[^@ ]+@[^@ ]+[.][^@ ]+$}
 * </ul>
 *
 * The mask is 1 · numeric + 2 · date + 4 · email. Every byte the patterns name is ASCII, and no byte
 * of a multi-byte UTF-8 character is, so bytes stand for characters here.
 */
final class Shapes {
  private Shapes() {}

  static int mask(byte[] b, int from, int length) {
    return (numeric(b, from, from + length) ? 1 : 0)
        | (date(b, from, from + length) ? 2 : 0)
        | (email(b, from, from + length) ? 4 : 0);
  }

  private static boolean ends(byte[] b, int at, int end) {
    return at == end || (at == end - 1 && b[at] == '\n');
  }

  private static boolean digit(byte c) {
    return c >= '0' && c <= '9';
  }

  private static int digits(byte[] b, int at, int end) {
    int i = at;
    while (i < end && digit(b[i])) i++;
    return i - at;
  }

  static boolean numeric(byte[] b, int at, int end) {
    int i = at;
    if (i < end && (b[i] == '+' || b[i] == '-')) i++;
    int whole = digits(b, i, end);
    i += whole;
    if (whole > 0) {
      if (i < end && b[i] == '.') i += 1 + digits(b, i + 1, end);
    } else {
      if (i >= end || b[i] != '.') return false;
      int fraction = digits(b, i + 1, end);
      if (fraction == 0) return false;
      i += 1 + fraction;
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      int j = i + 1;
      if (j < end && (b[j] == '+' || b[j] == '-')) j++;
      int exponent = digits(b, j, end);
      if (exponent > 0) i = j + exponent; // else the exponent is not part of the match
    }
    return ends(b, i, end);
  }

  private static boolean fixed(byte[] b, int at, int end, int count) {
    return at + count <= end && digits(b, at, at + count) == count;
  }

  static boolean date(byte[] b, int at, int end) {
    int i = at;
    if (!fixed(b, i, end, 4) || i + 4 >= end || b[i + 4] != '-') return false;
    i += 5;
    if (!fixed(b, i, end, 2) || i + 2 >= end || b[i + 2] != '-') return false;
    i += 3;
    if (!fixed(b, i, end, 2)) return false;
    i += 2;
    // ([ T]hh:mm(:ss([.]f+)?)?)? — each optional part taken when it matches whole
    if (i < end && (b[i] == ' ' || b[i] == 'T') && fixed(b, i + 1, end, 2)
        && i + 3 < end && b[i + 3] == ':' && fixed(b, i + 4, end, 2)) {
      i += 6;
      if (i < end && b[i] == ':' && fixed(b, i + 1, end, 2)) {
        i += 3;
        if (i < end && b[i] == '.') {
          int fraction = digits(b, i + 1, end);
          if (fraction > 0) i += 1 + fraction;
        }
      }
    }
    return ends(b, i, end);
  }

  static boolean email(byte[] b, int at, int end) {
    int i = at;
    while (i < end && b[i] != '@' && b[i] != ' ') i++;
    if (i == at || i >= end || b[i] != '@') return false;
    int rest = i + 1; // [^@ ]+[.][^@ ]+ : no '@' or ' ' after, and a '.' with a byte on each side
    boolean dot = false;
    for (int j = rest; j < end; j++) {
      if (b[j] == '@' || b[j] == ' ') return false;
      if (b[j] == '.' && j > rest && j < end - 1) dot = true;
    }
    return dot;
  }
}
