package io.aloft.bench.cpu;

import io.aloft.bench.cluster.BrokerCpu;
import io.aloft.bench.cluster.Machine;
import java.io.IOException;

/**
 * One phase's measurement: the broker's CPU time, the producer's acknowledged bytes and requests,
 * and a consumer's bytes, fetches and commits, read when it is created, at the end of the phase's
 * load ({@link #active}) and at the end of its drain ({@link #end}); a flight recording of the
 * phase when profiling. Confined to the benchmark's thread.
 */
final class PhaseClock {
    private final long pid;
    private final BrokerProfile profile;
    private final String recording;
    private final CpuLoad load;
    private final CpuLoad.Reader reader;
    private final String loadAtStart = Machine.loadAverage().split(" ")[0];
    private final long acked0;
    private final long requests0;
    private final long read0;
    private final long fetches0;
    private final long commits0;
    private final double cpu0;
    private final long t0;
    private long t1;
    private long acked1;
    private long requests1;

    /**
     * @param recording the flight recording's name, or null for none
     * @param reader the phase's consumer, or null
     */
    PhaseClock(long pid, BrokerProfile profile, String recording, CpuLoad load, CpuLoad.Reader reader)
            throws IOException, InterruptedException {
        this.pid = pid;
        this.profile = profile;
        this.recording = recording;
        this.load = load;
        this.reader = reader;
        if (recording != null) {
            profile.start(pid, recording);
        }
        acked0 = load.ackedBytes();
        requests0 = load.producerRequests();
        read0 = reader == null ? 0 : reader.bytes();
        fetches0 = reader == null ? 0 : reader.fetches();
        commits0 = reader == null ? 0 : reader.commits();
        cpu0 = BrokerCpu.seconds(pid);
        t0 = System.nanoTime();
    }

    /** The phase's load is over; its drain begins. */
    void active() {
        t1 = System.nanoTime();
        acked1 = load.ackedBytes();
        requests1 = load.producerRequests();
    }

    /** MB the phase's consumer read so far. */
    double consumedMb() {
        return (reader.bytes() - read0) / 1e6;
    }

    /**
     * The phase, its CPU less {@code idleRate} (broker CPU seconds a second when idle) over the drain.
     *
     * @param ofConsumed its MB are those the consumer read, not those the producer had acknowledged
     */
    CpuReport.Phase end(String name, double idleRate, boolean ofConsumed) throws IOException, InterruptedException {
        long t2 = System.nanoTime();
        double cpu = BrokerCpu.seconds(pid) - cpu0;
        if (recording != null) {
            profile.stop(pid, recording);
        }
        double drain = (t2 - t1) / 1e9;
        double mb = ofConsumed ? consumedMb() : (acked1 - acked0) / 1e6;
        long fetches = reader == null ? 0 : reader.fetches() - fetches0;
        long commits = reader == null ? 0 : reader.commits() - commits0;
        return new CpuReport.Phase(name, mb, cpu - idleRate * drain, (t1 - t0) / 1e9, drain, loadAtStart,
                requests1 - requests0, fetches, commits);
    }
}
