package org.dqplatform.engine;

/** A regular expression gave up on a value: it read more characters than its budget allows. */
public final class RegexBudgetExceeded extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public static final String MESSAGE =
      "regular expression exceeded its step budget on a value (catastrophic backtracking)";

  private RegexBudgetExceeded(String message) {
    super(message, null, false, false); // no stack trace: thrown deep inside the matcher's recursion
  }

  static RegexBudgetExceeded steps(long limit) {
    return new RegexBudgetExceeded(MESSAGE + ": more than " + limit + " characters read");
  }

  static RegexBudgetExceeded stack() {
    return new RegexBudgetExceeded(
        "regular expression exceeded its step budget on a value (its backtracking overflowed the stack)");
  }
}
