package org.dqplatform.engine;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.Block;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;

import scala.StringContext;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * {@code child RLIKE pattern}, answered by a {@link Utf8Dfa} on the string's bytes. Same result
 * as Spark's RLike for every input (NULL in, NULL out); only faster. A Catalyst expression with
 * its own code generation, so whole-stage code generation calls the automaton inline. (It extends
 * Expression, not UnaryExpression: javac cannot see the Scala class's erased
 * withNewChildrenInternal as an implementation.) Serializable as Catalyst's case classes are: a
 * scan of a cached batch ships its filter predicates to the tasks (InMemoryTableScanExec), so the
 * error rows of a regexp check on a cached JDBC batch could not be written without it.
 */
public final class DfaRLike extends Expression implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Expression child;
  private final Seq<Expression> children;
  private final String pattern;
  private final String automaton;
  private final Utf8Dfa dfa;

  public DfaRLike(Expression child, String pattern, String automaton) {
    this(child, pattern, automaton, new Utf8Dfa(pattern, automaton));
  }

  // Catalyst copies expressions many times while planning: a copy shares the parsed automaton.
  private DfaRLike(Expression child, String pattern, String automaton, Utf8Dfa dfa) {
    this.child = child;
    this.pattern = pattern;
    this.automaton = automaton;
    this.dfa = dfa;
    this.children = seq(child);
  }

  @SafeVarargs
  private static <T> Seq<T> seq(T... items) {
    return CollectionConverters.asScala(Arrays.asList(items)).toList();
  }

  @Override
  public Seq<Expression> children() {
    return children;
  }

  @Override
  public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
    return new DfaRLike(newChildren.apply(0), pattern, automaton, dfa);
  }

  @Override
  public boolean nullable() {
    return child.nullable();
  }

  @Override
  public DataType dataType() {
    return DataTypes.BooleanType;
  }

  @Override
  public Object eval(InternalRow row) {
    Object value = child.eval(row);
    return value == null ? null : dfa.find((UTF8String) value);
  }

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    ExprCode text = child.genCode(ctx);
    String matcher = ctx.addReferenceObj("dqDfa", dfa, Utf8Dfa.class.getName());
    // What Scala writes as code"..." (Block's string interpolator), spelled out for Java.
    StringContext parts = new StringContext(seq(
        "",
        "\nboolean ", " = ", ";\nboolean ", " = false;\nif (!", ") {\n  ", " = " + matcher + ".find(", ");\n}\n"));
    Block code = new Block.BlockHelper(parts).code(seq(
        text.code(), ev.isNull(), text.isNull(), ev.value(), ev.isNull(), ev.value(), text.value()));
    return ev.copy(code, ev.isNull(), ev.value());
  }

  @Override
  public String prettyName() {
    return Functions.RLIKE;
  }

  @Override
  public String sql() {
    return child.sql() + " RLIKE '" + pattern.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  @Override
  public String toString() {
    return Functions.RLIKE + "(" + child + ", " + pattern + ")";
  }

  // --- scala.Product, which Catalyst's tree copying and equality rely on ---
  @Override
  public int productArity() {
    return 3;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return child;
      case 1:
        return pattern;
      case 2:
        return automaton;
      default:
        throw new IndexOutOfBoundsException(Integer.toString(n));
    }
  }

  @Override
  public boolean canEqual(Object other) {
    return other instanceof DfaRLike;
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) return true;
    if (!(other instanceof DfaRLike)) return false;
    DfaRLike that = (DfaRLike) other;
    return child.equals(that.child) && pattern.equals(that.pattern) && automaton.equals(that.automaton);
  }

  @Override
  public int hashCode() {
    return Objects.hash(child, pattern, automaton);
  }
}
