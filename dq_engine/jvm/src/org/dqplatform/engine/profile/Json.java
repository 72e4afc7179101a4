package org.dqplatform.engine.profile;

/**
 * The little JSON the profile pass answers with. Doubles are written as strings (Java's
 * Double.toString, which reads back to the same double, and NaN or Infinity as words) so that
 * Python reads them with float(); longs as numbers.
 */
final class Json {
  private final StringBuilder out = new StringBuilder();
  private final boolean[] first = new boolean[16];
  private int depth;

  private void next() {
    if (depth > 0 && !first[depth]) out.append(',');
    if (depth > 0) first[depth] = false;
  }

  private Json push(char opening) {
    next();
    out.append(opening);
    first[++depth] = true;
    return this;
  }

  Json open() {
    return push('{');
  }

  Json close() {
    out.append('}');
    depth--;
    return this;
  }

  Json array() {
    return push('[');
  }

  Json end() {
    out.append(']');
    depth--;
    return this;
  }

  Json key(String name) {
    next();
    quote(name);
    out.append(':');
    first[depth] = true; // the value follows without a comma
    return this;
  }

  Json number(long value) {
    next();
    out.append(value);
    return this;
  }

  Json number(Long value) {
    return value == null ? nothing() : number(value.longValue());
  }

  Json decimal(Double value) {
    if (value == null) return nothing();
    next();
    quote(Double.toString(value));
    return this;
  }

  Json string(String value) {
    next();
    quote(value);
    return this;
  }

  Json bool(boolean value) {
    next();
    out.append(value);
    return this;
  }

  Json nothing() {
    next();
    out.append("null");
    return this;
  }

  private void quote(String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    out.append('"');
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
