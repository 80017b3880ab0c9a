package io.aloft.compat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * kcat, the command-line client on librdkafka: Debian 12's package (kcat 1.7.1 on librdkafka 2.0.2),
 * installed by {@code scripts/kcat.sh}. kcat has no admin commands, so the harness creates the topic;
 * then one kcat run per step, each with a hard limit: metadata ({@code -L}), produce keyed records
 * from a file ({@code -P -K: -l}), query the end offsets ({@code -Q}: ListOffsets), and consume with a
 * group from the beginning until the end of every partition ({@code -G -e}), which commits on close.
 * The harness checks what kcat printed; {@link BrokerCheck} then checks the committed offsets.
 *
 * <p>Immutable.
 */
final class Kcat {
    static final String SETUP_SCRIPT = "scripts/kcat.sh";
    private static final Pattern METADATA_PARTITION = Pattern.compile("\"partition\":(\\d+),\"leader\":(-?\\d+)");
    private static final Pattern QUERIED = Pattern.compile("^\\S+ \\[(\\d+)] offset (-?\\d+)$");

    private final Path binary;

    private Kcat(Path binary) {
        this.binary = binary;
    }

    /**
     * kcat from {@code -Daloft.compat.kcat} or the {@code PATH}.
     *
     * @throws IllegalStateException naming the setup script when there is none
     */
    static Kcat find() {
        return find(System.getProperty("aloft.compat.kcat"), System.getenv().getOrDefault("PATH", ""));
    }

    static Kcat find(String configured, String searchPath) {
        if (configured != null && !configured.isBlank()) {
            if (!Files.isExecutable(Path.of(configured))) {
                throw new IllegalStateException("-Daloft.compat.kcat=" + configured + " is not an executable file");
            }
            return new Kcat(Path.of(configured));
        }
        for (String dir : searchPath.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "kcat");
            if (Files.isExecutable(candidate)) {
                return new Kcat(candidate);
            }
        }
        throw new IllegalStateException("kcat is not on the PATH; run `bash " + SETUP_SCRIPT + "` (scripts/test.sh "
                + "does; it installs Debian's kcat package with apt-get and needs root the first time)");
    }

    /** Runs the steps, stopping at the first that fails; the report quotes every kcat run. */
    ClientCompatibilityTests.Outcome run(Scenario s, Path workDir, Duration limitPerStep) throws Exception {
        Path dir = Files.createDirectories(workDir.resolve("kcat"));
        StringBuilder transcript = new StringBuilder();
        String b = s.bootstrap();

        ClientRun version = step("version", List.of("-V"), dir, limitPerStep, transcript);
        createTopic(s);

        ClientRun metadata = step("metadata", List.of("-b", b, "-L", "-J", "-t", s.topic()), dir, limitPerStep,
                transcript);
        if (!version.succeeded() || !metadata.succeeded()) {
            return failed("kcat -V or -L failed", transcript);
        }
        Matcher m = METADATA_PARTITION.matcher(metadata.output());
        int partitions = 0;
        while (m.find()) {
            if (Integer.parseInt(m.group(2)) < 0) {
                return failed("metadata: partition " + m.group(1) + " has no leader", transcript);
            }
            partitions++;
        }
        if (partitions != s.partitions()) {
            return failed("metadata: " + partitions + " partitions, expected " + s.partitions(), transcript);
        }

        Path records = dir.resolve(s.topic() + ".records");
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < s.records(); i++) {
            lines.append(keyOf(i)).append(':').append(i).append('\n');
        }
        Files.writeString(records, lines, StandardCharsets.UTF_8);
        // Idempotent, as in the Python scenario: librdkafka's default producer does not promise a partition's
        // order when it retries with several requests in flight (seen once against Apache Kafka under load).
        ClientRun produce = step("produce", List.of("-b", b, "-P", "-X", "enable.idempotence=true", "-t", s.topic(),
                "-K", ":", "-l", records.toString()), dir, limitPerStep, transcript);
        if (!produce.succeeded()) {
            return failed("produce failed", transcript);
        }

        List<String> query = new ArrayList<>(List.of("-b", b, "-Q"));
        for (int p = 0; p < s.partitions(); p++) {
            query.addAll(List.of("-t", s.topic() + ":" + p + ":-1")); // -1: the latest offset
        }
        ClientRun queried = step("query-end-offsets", query, dir, limitPerStep, transcript);
        if (!queried.succeeded()) {
            return failed("query of the end offsets (ListOffsets) failed", transcript);
        }
        Map<Integer, Long> ends = new TreeMap<>();
        for (String line : queried.output().lines().toList()) {
            Matcher q = QUERIED.matcher(line.trim());
            if (q.matches()) {
                ends.put(Integer.parseInt(q.group(1)), Long.parseLong(q.group(2)));
            }
        }
        if (ends.size() != s.partitions() || ends.values().stream().mapToLong(Long::longValue).sum() != s.records()) {
            return failed("end offsets " + ends + " do not add up to " + s.records() + " records", transcript);
        }

        ClientRun consume = step("consume", List.of("-b", b, "-G", s.group(), "-X", "auto.offset.reset=earliest",
                "-e", "-f", "%p %o %k %s\\n", s.topic()), dir, limitPerStep, transcript);
        if (!consume.succeeded()) {
            return failed("consume with group " + s.group() + " failed", transcript);
        }
        String problem = checkConsumed(consume.output(), ends, s);
        return problem == null ? new ClientCompatibilityTests.Outcome(true, "kcat runs:" + transcript)
                : failed(problem, transcript);
    }

    private ClientRun step(String name, List<String> args, Path dir, Duration limit, StringBuilder transcript)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        command.addAll(args);
        // stdout apart: kcat writes records there and its notes ("% Reached end ...") to stderr.
        ClientRun run = ClientRun.run("kcat-" + name, command, Map.of(), dir, limit, true);
        transcript.append("\n--- ").append(run.describe());
        return run;
    }

    /**
     * Every record once, each partition read in offset order from 0 to its end, each key in one
     * partition, and the records of a partition in the order they were produced.
     */
    static String checkConsumed(String output, Map<Integer, Long> ends, Scenario s) {
        Map<Integer, Long> next = new HashMap<>();
        Map<Integer, Integer> lastRecord = new HashMap<>();
        Map<String, Integer> keyPartition = new HashMap<>();
        boolean[] seen = new boolean[s.records()];
        int count = 0;
        for (String line : output.lines().toList()) {
            String[] f = line.split(" ");
            if (f.length != 4 || line.startsWith("%")) {
                continue; // kcat's own "% Reached end of ..." lines and librdkafka's log lines
            }
            int p = Integer.parseInt(f[0]);
            long offset = Long.parseLong(f[1]);
            int i = Integer.parseInt(f[3]);
            if (offset != next.getOrDefault(p, 0L)) {
                return "partition " + p + ": read offset " + offset + ", expected " + next.getOrDefault(p, 0L);
            }
            if (!f[2].equals(keyOf(i)) || i >= s.records() || seen[i]) {
                return "partition " + p + " offset " + offset + ": unexpected or repeated record '" + line + "'";
            }
            if (i <= lastRecord.getOrDefault(p, -1)) {
                return "partition " + p + ": record " + i + " after record " + lastRecord.get(p);
            }
            Integer q = keyPartition.putIfAbsent(f[2], p);
            if (q != null && q != p) {
                return "key " + f[2] + " in partitions " + q + " and " + p;
            }
            seen[i] = true;
            lastRecord.put(p, i);
            next.put(p, offset + 1);
            count++;
        }
        if (count != s.records()) {
            return "consumed " + count + " records, expected " + s.records();
        }
        for (Map.Entry<Integer, Long> e : ends.entrySet()) {
            if (!e.getValue().equals(next.getOrDefault(e.getKey(), 0L))) {
                return "partition " + e.getKey() + " read up to " + next.get(e.getKey()) + ", its end offset is "
                        + e.getValue();
            }
        }
        return null;
    }

    private static void createTopic(Scenario s) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(s.topic(), s.partitions(), (short) 1))).all().get(15,
                    TimeUnit.SECONDS);
        }
    }

    private static String keyOf(int i) {
        return "key-" + i % 17;
    }

    private static ClientCompatibilityTests.Outcome failed(String what, StringBuilder transcript) {
        return new ClientCompatibilityTests.Outcome(false, "kcat: " + what + "\nkcat runs:" + transcript);
    }
}
