package io.aloft.config;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The values a key accepts. {@link #problem} says what is wrong with a value (naming it), and
 * {@link #describe} what is accepted, for the documentation. Implementations must be immutable
 * and side-effect free: definitions are checked in tests with made-up values, so a validator
 * never looks at the file system or the network.
 *
 * @param <T> the parsed value's type
 */
public interface Validator<T> {

    /**
     * @return {@code null} if {@code value} is acceptable, else what is wrong with it, naming the
     *     value ("65 is outside [1, 64]"); the key is added by the caller
     */
    String problem(T value);

    /** What is accepted, for the documentation ("1 to 64"); empty when any value of the type is. */
    String describe();

    /** This check, then {@code next}; described as both. */
    default Validator<T> and(Validator<? super T> next) {
        Validator<T> first = this;
        String description = join(first.describe(), next.describe());
        return of(description, v -> {
            String p = first.problem(v);
            return p != null ? p : next.problem(v);
        });
    }

    /** Accepts every value of the type. */
    static <T> Validator<T> any() {
        return of("", v -> null);
    }

    /** A custom check: {@code problem} returns null for a good value, else what is wrong (naming the value). */
    static <T> Validator<T> of(String description, Function<? super T, String> problem) {
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(problem, "problem");
        return new Validator<>() {
            @Override
            public String problem(T value) {
                return problem.apply(value);
            }

            @Override
            public String describe() {
                return description;
            }
        };
    }

    /** A custom check from a predicate; {@code problem} words the failure for a bad value. */
    static <T> Validator<T> check(String description, Predicate<? super T> ok, Function<? super T, String> problem) {
        return of(description, v -> ok.test(v) ? null : problem.apply(v));
    }

    /** At least {@code min}. */
    static <N extends Number & Comparable<N>> Validator<N> atLeast(N min) {
        return check("at least " + min, v -> v.compareTo(min) >= 0, v -> v + " is below the minimum of " + min);
    }

    /** From {@code min} to {@code max}, both included. */
    static <N extends Number & Comparable<N>> Validator<N> between(N min, N max) {
        if (min.compareTo(max) > 0) {
            throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
        }
        return check(min + " to " + max, v -> v.compareTo(min) >= 0 && v.compareTo(max) <= 0,
                v -> v + " is outside [" + min + ", " + max + "]");
    }

    /** A multiple of {@code unit} (a positive number). */
    static Validator<Long> multipleOf(long unit) {
        if (unit <= 0) {
            throw new IllegalArgumentException("unit " + unit + " is not positive");
        }
        return check("a multiple of " + unit, v -> v % unit == 0, v -> v + " is not a multiple of " + unit);
    }

    /** One of {@code values}, exactly (case matters, as in Kafka). */
    static Validator<String> oneOf(String... values) {
        List<String> allowed = List.of(values);
        return check("one of " + String.join(", ", allowed), allowed::contains,
                v -> "'" + v + "' is not one of " + allowed);
    }

    /** Not empty after trimming. */
    static Validator<String> notBlank() {
        return check("not empty", v -> !v.isBlank(), v -> "must not be empty");
    }

    private static String join(String a, String b) {
        if (a.isEmpty()) {
            return b;
        }
        return b.isEmpty() ? a : a + "; " + b;
    }
}
