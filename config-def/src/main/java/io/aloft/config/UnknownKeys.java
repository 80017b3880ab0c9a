package io.aloft.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Warnings for keys a properties file sets that nothing reads: usually a typo, which would
 * otherwise leave the setting silently at its default. Each names the key and, when a known key
 * is close (a letter or two off, or the known key with its unit suffix), suggests it. Stateless.
 */
public final class UnknownKeys {
    private UnknownKeys() {
    }

    /** One warning per key of {@code given} not in {@code known}, in name order. */
    public static List<String> warnings(Collection<String> given, Set<String> known) {
        List<String> out = new ArrayList<>();
        for (String key : new TreeSet<>(given)) {
            if (known.contains(key)) {
                continue;
            }
            String hint = closest(key, known);
            out.add("Unknown configuration key '" + key + "' is ignored" + (hint == null
                    ? " (no Aloft module reads it)" : "; did you mean '" + hint + "'?"));
        }
        return out;
    }

    /** The known key {@code key} most likely misspells, or {@code null} if none is close. */
    static String closest(String key, Collection<String> known) {
        int limit = key.length() > 12 ? 3 : 2;
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : new TreeSet<>(known)) {
            // "wal.capacity" for "wal.capacity.bytes": the unit left off.
            int d = candidate.startsWith(key + ".") ? 1 : distance(key, candidate, limit);
            if (d <= limit && d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Edit distance with transpositions (optimal string alignment); {@code limit + 1} when surely above. */
    static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) > limit) {
            return limit + 1;
        }
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }
}
