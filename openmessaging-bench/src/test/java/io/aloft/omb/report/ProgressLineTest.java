package io.aloft.omb.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProgressLineTest {
    @Test
    void format_showsRatesBacklogAndLatencies() {
        String line = new ProgressLine("test", 20, 12345, 12.06, 12300, 12.0, 4200, 2.1, 9.8, 3.0, 140, 0).format();
        assertTrue(line.startsWith("[test"), line);
        assertTrue(line.contains("pub  12345 msg/s   12.1 MB/s | cons  12300 msg/s   12.0 MB/s"), line);
        assertTrue(line.contains("backlog 4.2k msgs | pub lat ms p50 2.1 p99 9.8 | e2e ms p50 3.0 p99 140"), line);
        assertTrue(!line.contains("errors"), line);
    }

    @Test
    void format_unmeasuredLatencyAndErrors() {
        String line = new ProgressLine("build", 1, 1, 0, 0, 0, 12, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 3)
                .format();
        assertTrue(line.contains("e2e ms p50 - p99 -"), line);
        assertTrue(line.endsWith("| errors 3"), line);
    }

    @Test
    void count_abbreviates() {
        assertEquals("999", ProgressLine.count(999));
        assertEquals("12.5k", ProgressLine.count(12_500));
        assertEquals("3.0M", ProgressLine.count(3_000_000));
    }
}
