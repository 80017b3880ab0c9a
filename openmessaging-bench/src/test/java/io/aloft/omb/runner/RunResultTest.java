package io.aloft.omb.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunResultTest {
    @Test
    void toJson_roundTripsInOrderWithNaNAsNull() {
        Map<String, Double> f = new LinkedHashMap<>();
        f.put("publishRateMsgs", 1234.5);
        f.put("e2eLatencyP50Ms", Double.NaN);
        f.put("publishErrors", 0.0);
        RunResult r = new RunResult("w \"quoted\"", f);
        String json = r.toJson();
        assertTrue(json.contains("\"e2eLatencyP50Ms\" : null"), json);
        RunResult back = RunResult.fromJson(json);
        assertEquals("w \"quoted\"", back.workload());
        assertEquals(List.copyOf(f.keySet()), List.copyOf(back.figures().keySet()));
        assertEquals(1234.5, back.figure("publishRateMsgs"));
        assertTrue(Double.isNaN(back.figure("e2eLatencyP50Ms")));
        assertTrue(Double.isNaN(back.figure("absent")));
    }

    @Test
    void toTable_listsEveryFigure() {
        String table = new RunResult("w", Map.of("publishMBps", 12.345)).toTable();
        assertTrue(table.contains("publishMBps") && table.contains("12.35"), table);
    }

    @Test
    void fromJson_notAResult_throws() {
        assertThrows(IllegalArgumentException.class, () -> RunResult.fromJson("{\"x\": 1}"));
    }
}
