package org.dqplatform.engine;

import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.api.java.UDF3;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction1;

/** Registers the engine's SQL functions in a session (called from dq_engine/jvm.py). */
public final class Functions {
  public static final String RLIKE = "dq_rlike";
  public static final String GUARDED_RLIKE = "dq_rlike_guarded";
  public static final String GUARDED_EXTRACT = "dq_regexp_extract";
  public static final String GUARDED_REPLACE = "dq_regexp_replace";

  private Functions() {}

  /** dq_rlike(text, pattern, automaton): `text RLIKE pattern` through a precompiled automaton. */
  public static void register(SparkSession spark) {
    spark.sessionState().functionRegistry().createOrReplaceTempFunction(
        RLIKE,
        new AbstractFunction1<Seq<Expression>, Expression>() {
          @Override
          public Expression apply(Seq<Expression> args) {
            if (args.size() != 3) {
              throw new IllegalArgumentException(RLIKE + " takes (text, pattern, automaton)");
            }
            return new DfaRLike(args.apply(0), literal(args.apply(1)), literal(args.apply(2)));
          }
        },
        "scala_udf");
    // Java's regex under a step budget (GuardedRegex): for the patterns the automaton refuses.
    spark.udf().register(
        GUARDED_RLIKE, (UDF2<String, String, Boolean>) GuardedRegex::find, DataTypes.BooleanType);
    spark.udf().register(
        GUARDED_EXTRACT, (UDF3<String, String, Integer, String>) GuardedRegex::extract, DataTypes.StringType);
    spark.udf().register(
        GUARDED_REPLACE, (UDF3<String, String, String, String>) GuardedRegex::replace, DataTypes.StringType);
  }

  private static String literal(Expression argument) {
    Object value = argument.foldable() ? argument.eval(null) : null;
    if (!(value instanceof UTF8String)) {
      throw new IllegalArgumentException(RLIKE + " needs its pattern and automaton as string literals");
    }
    return value.toString();
  }
}
